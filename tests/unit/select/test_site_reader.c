/* The site reader thread (plugins/select/site_reader.c, with the file part
 * of the site, site_files.c), built here as it is in the plugin, against
 * the real files in a temporary directory.  The only part of Slurm it
 * calls is its logging, which this file provides: lines go to stderr and
 * to a buffer the tests read, and while `hold` is set a line logged by the
 * reader thread waits until the test lets it go: a log device (or a file
 * system) that hangs, the one thing that can keep the thread from
 * stopping.  READER_STOP_WAIT_S is 1 s in this build (5 s in the plugin).
 *
 * - MetricsFile switched to a path that does not exist yet: what the old
 *   file published before is not taken any more (it was installed later
 *   and stayed until the new file appeared).
 * - A thread that does not stop in time is detached and goes on with its
 *   own state: it never reads the next generation's pipe or slots, and
 *   when it returns it has closed every descriptor it had (the pipe and the
 *   inotify descriptor leaked, and it polled fd -1 once a second forever).
 *   Under the ASan build (meson setup build-asan -Db_sanitize=address,
 *   undefined -Db_lundef=false) LeakSanitizer checks that it freed the rest. */
#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"

#include "site.h"
#include "site_reader.h"

#define DEADLINE_S 10

/* ---- Slurm's logging, as site_reader.c calls it (log.h) ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t main;
	bool hold;      /* the first reader thread that logs waits */
	bool has_victim;
	pthread_t victim;
	int held; /* its lines waiting */
	char text[16384];
} lg = { .lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER };

static void log_line_v(const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s\n", line);
	pthread_mutex_lock(&lg.lock);
	strncat(lg.text, line, sizeof(lg.text) - strlen(lg.text) - 2);
	strcat(lg.text, "\n");
	if (lg.hold && !lg.has_victim && !pthread_equal(pthread_self(), lg.main)) {
		lg.victim = pthread_self();
		lg.has_victim = true;
	}
	if (lg.has_victim && pthread_equal(pthread_self(), lg.victim)) {
		lg.held++;
		pthread_cond_broadcast(&lg.changed);
		while (lg.hold)
			pthread_cond_wait(&lg.changed, &lg.lock);
		lg.held--;
	}
	pthread_mutex_unlock(&lg.lock);
}

int get_log_level(void)
{
	return LOG_LEVEL_DEBUG;
}

void log_var(const log_level_t level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	log_line_v(fmt, ap);
	va_end(ap);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line_v(fmt, ap);
	va_end(ap);
	return -1;
}

static void hold_logs(bool on)
{
	pthread_mutex_lock(&lg.lock);
	lg.hold = on;
	pthread_cond_broadcast(&lg.changed);
	pthread_mutex_unlock(&lg.lock);
}

static bool logged(const char *what)
{
	bool yes;

	pthread_mutex_lock(&lg.lock);
	yes = strstr(lg.text, what) != NULL;
	pthread_mutex_unlock(&lg.lock);
	return yes;
}

/* ---- helpers ---- */

static char dir[64];

static void setup(void)
{
	lg.main = pthread_self();
	snprintf(dir, sizeof(dir), "/tmp/psiplace-reader-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
}

static const char *in_dir(const char *name)
{
	static char p[4][128];
	static int next;
	char *s = p[next++ % 4];

	snprintf(s, sizeof(p[0]), "%s/%s", dir, name);
	return s;
}

/* Written beside and renamed, as a site's monitoring does. */
static void write_file(const char *name, const char *text)
{
	char tmp[160];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	cr_assert_not_null(f = fopen(tmp, "w"));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(rename(tmp, in_dir(name)), 0);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void tick(void)
{
	struct timespec t = { 0, 10 * 1000 * 1000 };

	nanosleep(&t, NULL);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

/* Poll with a deadline until `cond` holds (evaluated once a round: it
 * may take what it looks at). */
#define POLL_UNTIL(cond, ...)                                         \
	do {                                                          \
		double until_ = now_s() + DEADLINE_S;                 \
		bool ok_;                                             \
		while (!(ok_ = (cond)) && now_s() < until_)           \
			tick();                                       \
		cr_assert(ok_, __VA_ARGS__);                          \
	} while (0)

static struct site *wait_site(void)
{
	struct site *s = NULL;

	POLL_UNTIL((s = site_reader_take_site()) != NULL, "no configuration published");
	return s;
}

static void start(const char *metrics)
{
	psiplace_error_t err;

	cr_assert_eq(site_reader_start(metrics, &err), 0, "%s", err.text);
}

/* ---- tests ---- */

TestSuite(site_reader, .init = setup, .fini = teardown, .timeout = 60);

Test(site_reader, metrics_file_switched_to_missing_path_drops_old_pending_snapshot)
{
	struct psiplace_metrics *m;
	struct site *s;
	char conf[160];

	write_file("a.metrics", "n1 load1=1\nn2 load1=2\n");
	start(in_dir("a.metrics"));
	POLL_UNTIL(site_reader_published() >= 1, "a.metrics was not published");
	/* not taken: a decision has not run since */
	snprintf(conf, sizeof(conf), "MetricsFile=%s\n", in_dir("b.metrics"));
	write_file("psiplace.conf", conf);
	cr_assert_eq(site_reader_reload(NULL, in_dir("psiplace.conf")), 0);
	s = wait_site();
	cr_assert_str_eq(s->psiconf.metrics_file, in_dir("b.metrics"));
	site_reader_free_site(s);
	m = site_reader_take();
	cr_assert(!m || m->n == 0,
		  "after MetricsFile switched to a missing file, the old file's %zu nodes were taken",
		  m->n);
	site_reader_free(m);
	/* the new file publishes once it appears */
	write_file("b.metrics", "n3 load1=3\n");
	POLL_UNTIL((m = site_reader_take()) && m->n > 0, "b.metrics was not published");
	cr_assert_eq(m->n, 1);
	cr_assert_not_null(psiplace_metrics_node(m, "n3"));
	site_reader_free(m);
	site_reader_stop();
}

Test(site_reader, stop_joins_a_free_thread_and_closes_everything)
{
	int base = open_fds();

	write_file("a.metrics", "n1 load1=1\n");
	start(in_dir("a.metrics"));
	POLL_UNTIL(site_reader_published() >= 1, "a.metrics was not published");
	site_reader_stop();
	cr_assert_not(logged("detached"), "a reader that was free to stop was detached");
	cr_assert_eq(open_fds(), base, "descriptors left open: %d, before start %d", open_fds(),
		     base);
	cr_assert_null(site_reader_take());
	cr_assert_null(site_reader_take_site());
}

Test(site_reader, detached_thread_keeps_its_own_state_and_leaks_nothing)
{
	struct psiplace_metrics *m;
	struct site *s;
	char conf[160];
	int base = open_fds(), one;

	write_file("a.metrics", "n1 load1=1\n");
	start(in_dir("a.metrics"));
	POLL_UNTIL(site_reader_published() >= 1, "a.metrics was not published");
	one = open_fds() - base; /* the wake pipe and the inotify descriptor */
	cr_assert_eq(one, 3);
	/* The first generation reads a configuration and hangs logging it. */
	snprintf(conf, sizeof(conf), "MetricsFile=%s\n", in_dir("old.metrics"));
	write_file("old.conf", conf);
	hold_logs(true);
	cr_assert_eq(site_reader_reload(NULL, in_dir("old.conf")), 0);
	POLL_UNTIL(lg.held == 1, "the reader did not log");
	site_reader_stop();
	cr_assert(logged("site reader did not stop within 1 s, detached"));

	/* A second generation works on its own while the first is stuck. */
	write_file("new.metrics", "n9 load1=9\n");
	start(in_dir("new.metrics"));
	POLL_UNTIL((m = site_reader_take()) != NULL, "new.metrics was not published");
	cr_assert_not_null(psiplace_metrics_node(m, "n9"));
	site_reader_free(m);

	/* The first one goes on, publishes into its own slots and returns. */
	hold_logs(false);
	POLL_UNTIL(open_fds() == base + one,
		   "the detached reader did not return or left descriptors open: %d open, %d "
		   "expected",
		   open_fds(), base + one);
	cr_assert_null(site_reader_take_site(),
		       "the detached reader's configuration reached the next generation");
	cr_assert_eq(site_reader_published(), 1, "the next generation counts another's results");

	/* The second generation still answers reloads and stops in time. */
	snprintf(conf, sizeof(conf), "MetricsFile=%s\n", in_dir("new.metrics"));
	write_file("new.conf", conf);
	cr_assert_eq(site_reader_reload(NULL, in_dir("new.conf")), 0);
	s = wait_site();
	cr_assert_str_eq(s->psiconf.metrics_file, in_dir("new.metrics"));
	site_reader_free_site(s);
	site_reader_stop();
	cr_assert_eq(open_fds(), base);
}
