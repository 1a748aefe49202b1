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
 * it while reading a file.
 *
 * Generations: each start makes a struct reader that holds everything its
 * thread touches (wake pipe, metrics path, the two pending slots, the paths
 * asked for), with two references, the plugin's and the thread's; the last
 * to let go frees it all.  A thread stuck in a read (a hung file system)
 * when stop gives up waiting is detached and goes on with its own
 * generation: it never reads the plugin's globals, what it publishes goes
 * to slots nobody takes any more, and it frees the generation and closes
 * its pipe when it returns.  A decision only takes from the current
 * generation. */
#include <dlfcn.h>
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
#ifndef READER_STOP_WAIT_S      /* the unit tests wait less */
#define READER_STOP_WAIT_S 5
#endif

static const char me[] = "select/psiplace_cons_tres";

struct reader {
	atomic_uint refs;     /* the plugin's (until stop) and the thread's */
	atomic_bool stop;
	unsigned long gen;
	int wake[2];          /* a byte on wake[1] wakes the thread: stop or reload */
	char *path;           /* the metrics file; the thread's own once it runs */
	pthread_mutex_t ask;
	char *ask_plugstack, *ask_psiconf; /* a reload asked for, under `ask` */
	_Atomic(struct psiplace_metrics *) pending;
	_Atomic(struct site *) pending_site;
	atomic_ulong published;
};

/* The plugin's side: touched only by init, fini, reconfigure and
 * decisions, which slurmctld runs one at a time. */
static struct {
	struct reader *cur; /* NULL: not running */
	pthread_t thread;
	unsigned long gens;
} rd;

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
	site_files_free(s); /* the reader's sites never had a node index */
	free(s);
}

/* Let go of one reference; the last frees the generation. */
static void reader_put(struct reader *r)
{
	if (atomic_fetch_sub(&r->refs, 1) != 1)
		return;
	if (r->wake[0] >= 0)
		close(r->wake[0]);
	if (r->wake[1] >= 0)
		close(r->wake[1]);
	free(r->path);
	free(r->ask_plugstack);
	free(r->ask_psiconf);
	pthread_mutex_destroy(&r->ask);
	site_reader_free(atomic_exchange(&r->pending, NULL));
	site_reader_free_site(atomic_exchange(&r->pending_site, NULL));
	free(r);
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

static void publish(struct reader *r, struct psiplace_metrics *m)
{
	site_reader_free(atomic_exchange(&r->pending, m));
	atomic_fetch_add(&r->published, 1);
}

/* An empty snapshot: the values of the file read before are dropped. */
static void publish_empty(struct reader *r)
{
	struct psiplace_metrics *m = calloc(1, sizeof(*m));

	if (!m) { /* at least nothing older is installed */
		site_reader_free(atomic_exchange(&r->pending, NULL));
		return;
	}
	psiplace_metrics_init(m);
	publish(r, m);
}

/* One look at the file; `said` holds the last problem logged, so that a
 * problem is logged once per change, not once a second. */
static void check(struct reader *r, struct psiplace_filestamp *stamp, char *said, size_t saidlen)
{
	struct psiplace_metrics *m;
	struct read_log l = { 0 };
	psiplace_error_t err;
	bool changed;
	int rc;

	if (!r->path)
		return;
	rc = psiplace_file_changed(r->path, stamp, &changed, &err);
	if (!changed)
		return;
	if (!(m = calloc(1, sizeof(*m)))) {
		error("%s: metrics file %s: out of memory, keeping the previous values", me, r->path);
		stamp->valid = false; /* try again */
		return;
	}
	psiplace_metrics_init(m);
	if (rc == 0)
		rc = psiplace_metrics_read_file(r->path, m, log_line, &l, &err);
	if (rc < 0) {
		psiplace_metrics_free(m);
		psiplace_metrics_init(m);
		if (strcmp(said, err.text)) {
			info("%s: metrics file: %s; its values are dropped until it can be read", me,
			     err.text);
			snprintf(said, saidlen, "%s", err.text);
		}
		publish(r, m);
		return;
	}
	said[0] = '\0';
	if (l.logged > READER_LOGGED_LINES)
		info("%s: metrics file %s: %u more problem lines not logged", me, r->path,
		     l.logged - READER_LOGGED_LINES);
	/* published first: the line says the values are in use (the tests
	 * wait for it before they submit) */
	{
		size_t n = m->n, skipped = m->skipped;

		publish(r, m);
		verbose("%s: metrics file %s: %zu nodes, %zu lines skipped", me, r->path, n, skipped);
	}
}

static int watch_dir(const char *path)
{
	char dir[PATH_MAX];
	char *slash;
	int fd;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir))
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

/* Watch `mpath` from now on (NULL: none).  What was published from the
 * previous file is replaced by an empty snapshot, so that a decision never
 * installs it after the new configuration: the new file, which may not
 * exist yet, publishes when it can be read. */
static void switch_path(struct reader *r, const char *mpath, struct psiplace_filestamp *stamp,
			char *said, int *ino)
{
	free(r->path);
	r->path = mpath ? strdup(mpath) : NULL;
	if (mpath && !r->path)
		error("%s: metrics file %s: out of memory, not read", me, mpath);
	if (*ino >= 0)
		close(*ino);
	*ino = r->path ? watch_dir(r->path) : -1;
	*stamp = (struct psiplace_filestamp){ 0 };
	said[0] = '\0';
	publish_empty(r);
}

/* Read the configuration a reconfigure asked for and publish it; switch
 * to its metrics file when it names another one. */
static void reload(struct reader *r, struct psiplace_filestamp *stamp, char *said, int *ino)
{
	char *plugstack, *psiconf;
	const char *mpath;
	struct site *next;
	psiplace_error_t err;

	pthread_mutex_lock(&r->ask);
	plugstack = r->ask_plugstack;
	psiconf = r->ask_psiconf;
	r->ask_plugstack = r->ask_psiconf = NULL;
	pthread_mutex_unlock(&r->ask);
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
	if (!(mpath && r->path && !strcmp(mpath, r->path)) && (mpath || r->path))
		switch_path(r, mpath, stamp, said, ino);
	verbose("%s: configuration read again: NodeAllocationPolicy=%s", me,
		psiplace_policy_name(next->conf.policy));
	site_reader_free_site(atomic_exchange(&r->pending_site, next));
	atomic_fetch_add(&r->published, 1);
out:
	free(plugstack);
	free(psiconf);
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct psiplace_filestamp stamp = { 0 };
	char said[PSIPLACE_ERRLEN] = "";
	char buf[4096];
	int ino = r->path ? watch_dir(r->path) : -1;

	while (!atomic_load(&r->stop)) {
		struct pollfd p[2] = { { r->wake[0], POLLIN, 0 }, { ino, POLLIN, 0 } };

		check(r, &stamp, said, sizeof(said));
		if (poll(p, ino >= 0 ? 2 : 1, READER_INTERVAL_MS) < 0 && errno != EINTR)
			break;
		if (atomic_load(&r->stop))
			break;
		if (p[0].revents) {
			if (read(r->wake[0], buf, sizeof(buf)) <= 0)
				break; /* cannot happen while this generation lives */
			reload(r, &stamp, said, &ino);
			continue;
		}
		if (ino >= 0 && p[1].revents)
			while (read(ino, buf, sizeof(buf)) > 0)
				;
	}
	if (ino >= 0)
		close(ino);
	reader_put(r);
	return NULL;
}

int site_reader_start(const char *path, psiplace_error_t *err)
{
	struct reader *r;
	sigset_t all, old;
	int rc;

	if (rd.cur)
		site_reader_stop();
	if (!(r = calloc(1, sizeof(*r))))
		return psiplace_seterr(err, "site reader: out of memory");
	atomic_init(&r->refs, 1);
	atomic_init(&r->stop, false);
	r->gen = ++rd.gens;
	r->wake[0] = r->wake[1] = -1;
	pthread_mutex_init(&r->ask, NULL);
	/* Non-blocking writes: a full pipe means a wake-up is pending anyway. */
	if (pipe2(r->wake, O_CLOEXEC) < 0 || fcntl(r->wake[1], F_SETFL, O_NONBLOCK) < 0) {
		rc = errno;
		reader_put(r);
		return psiplace_seterr(err, "site reader: pipe: %s", strerror(rc));
	}
	if (path && !(r->path = strdup(path))) {
		reader_put(r);
		return psiplace_seterr(err, "site reader: out of memory");
	}
	atomic_fetch_add(&r->refs, 1); /* the thread's */
	/* Signals stay with slurmctld's own threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&rd.thread, NULL, reader_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		atomic_fetch_sub(&r->refs, 1);
		reader_put(r);
		return psiplace_seterr(err, "site reader: pthread_create: %s", strerror(rc));
	}
	rd.cur = r;
	return 0;
}

/* A detached thread runs this object's code until it returns: keep it
 * mapped after slurmctld unloads the plugin. */
static void pin_code(void)
{
	Dl_info self;

	if (dladdr((void *)pin_code, &self) && self.dli_fname &&
	    !dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE))
		error("%s: cannot keep the plugin mapped for the site reader: %s", me, dlerror());
}

void site_reader_stop(void)
{
	struct reader *r = rd.cur;
	struct timespec until;

	if (!r)
		return;
	rd.cur = NULL;
	atomic_store(&r->stop, true);
	if (write(r->wake[1], "x", 1) != 1 && errno != EAGAIN)
		error("%s: cannot wake the site reader: %m", me);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += READER_STOP_WAIT_S;
	if (pthread_timedjoin_np(rd.thread, NULL, &until)) {
		/* Stuck in a read of a hung file system: leave it its
		 * generation, which it frees when it returns. */
		error("%s: site reader did not stop within %d s, detached", me,
		      READER_STOP_WAIT_S);
		pin_code();
		pthread_detach(rd.thread);
	}
	reader_put(r);
}

int site_reader_reload(const char *plugstack_path, const char *psiconf_path)
{
	struct reader *r = rd.cur;
	char *a, *b;

	if (!r)
		return -1;
	a = plugstack_path ? strdup(plugstack_path) : NULL;
	b = strdup(psiconf_path ? psiconf_path : "");
	if ((plugstack_path && !a) || !b) {
		free(a);
		free(b);
		return -1;
	}
	pthread_mutex_lock(&r->ask);
	free(r->ask_plugstack);
	free(r->ask_psiconf);
	r->ask_plugstack = a;
	r->ask_psiconf = b;
	pthread_mutex_unlock(&r->ask);
	if (write(r->wake[1], "r", 1) != 1 && errno != EAGAIN)
		return -1;
	return 0;
}

struct site *site_reader_take_site(void)
{
	return rd.cur ? atomic_exchange(&rd.cur->pending_site, NULL) : NULL;
}

struct psiplace_metrics *site_reader_take(void)
{
	return rd.cur ? atomic_exchange(&rd.cur->pending, NULL) : NULL;
}

unsigned long site_reader_published(void)
{
	return rd.cur ? atomic_load(&rd.cur->published) : 0;
}
