/* The deadline of a malleable operation.  MPI has no timeout for a spawn,
 * an accept or a connect that waits for a partner that never comes; a
 * thread that sleeps until the deadline turns such a hang into one error
 * line and an exit, which the launcher turns into the end of the job.  It
 * calls no MPI function (the program may run MPI_THREAD_SINGLE). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mall_internal.h"

struct mall_watchdog {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	int seconds;
	char what[160];
	char phase[96];
};

static void *watch(void *arg)
{
	struct mall_watchdog *w = arg;
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += w->seconds;
	pthread_mutex_lock(&w->lock);
	while (!w->done && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&w->cond, &w->lock, &until);
	if (!w->done) {
		char node[64];
		const char *n = getenv("SLURMD_NODENAME");

		snprintf(node, sizeof(node), "%s", n ? n : "?");
		fprintf(stderr, "psiplace: error: %s: %s did not finish within %d s (node %s, pid %ld)\n",
			w->what, w->phase, w->seconds, node, (long)getpid());
		fflush(stderr);
		_exit(70);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

struct mall_watchdog *mall_watchdog_arm(const char *what, int seconds)
{
	struct mall_watchdog *w = calloc(1, sizeof(*w));
	pthread_condattr_t ca;

	if (!w)
		return NULL;
	w->seconds = seconds;
	snprintf(w->what, sizeof(w->what), "%s", what);
	snprintf(w->phase, sizeof(w->phase), "the start");
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&w->thread, NULL, watch, w)) {
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
		free(w);
		return NULL;
	}
	return w;
}

void mall_watchdog_phase(struct mall_watchdog *w, const char *phase)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	snprintf(w->phase, sizeof(w->phase), "%s", phase);
	pthread_mutex_unlock(&w->lock);
}

void mall_watchdog_disarm(struct mall_watchdog *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->done = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
