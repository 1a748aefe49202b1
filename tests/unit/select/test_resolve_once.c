/* select/psiplace_cons_tres resolves select/cons_tres on first use, from
 * whichever thread calls first (resolve(): pthread_once).  Here 16 threads
 * make that first call at once, through a forwarded entry point, against a
 * stand-in select_cons_tres.so (fake_cons_tres.c) in a PluginDir of its
 * own: it must be loaded and initialised exactly once, and every thread must
 * reach it only after its init() has finished, so all get the same answer.
 * The plugin runs as in any program that is not slurmctld: libslurmfull
 * loaded globally, slurm_conf.plugindir set, init() called once before the
 * first use, as Slurm's plugin loader does. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <criterion/criterion.h>

#include "slurm/slurm.h"

#include "fake_cons_tres.h"

#define THREADS 16

static struct {
	int (*node_init)(void); /* the plugin's select_p_node_init */
	pthread_barrier_t start;
	int answer[THREADS];
} t;

static void *plugin_load(void)
{
	void *full = dlopen(PSIPLACE_LIBSLURMFULL, RTLD_NOW | RTLD_GLOBAL), *plugin;
	slurm_conf_t *conf;
	int (*init)(void);

	cr_assert_not_null(full, "libslurmfull: %s", dlerror());
	conf = dlsym(full, "slurm_conf");
	cr_assert_not_null(conf, "libslurmfull has no slurm_conf");
	conf->plugindir = PSIPLACE_FAKE_DIR;
	plugin = dlopen(PSIPLACE_SELECT_PLUGIN, RTLD_LAZY | RTLD_LOCAL);
	cr_assert_not_null(plugin, "%s", dlerror());
	init = (int (*)(void))dlsym(plugin, "init");
	t.node_init = (int (*)(void))dlsym(plugin, "select_p_node_init");
	cr_assert(init && t.node_init, "the plugin lacks init or select_p_node_init");
	cr_assert_eq(init(), 0, "the plugin's init() failed");
	return plugin;
}

static void *first_use(void *arg)
{
	int *answer = arg;

	pthread_barrier_wait(&t.start);
	*answer = t.node_init();
	return NULL;
}

static atomic_int *counter(void *fake, const char *name)
{
	atomic_int *c = dlsym(fake, name);

	cr_assert_not_null(c, "the stand-in cons_tres lacks %s", name);
	return c;
}

Test(resolve_once, sixteen_threads_first_use_initialise_cons_tres_once)
{
	void *plugin = plugin_load(), *fake;
	pthread_t th[THREADS];
	int (*fini)(void) = (int (*)(void))dlsym(plugin, "fini");
	int i;

	cr_assert_null(dlopen(PSIPLACE_FAKE_DIR "/select_cons_tres.so", RTLD_LAZY | RTLD_NOLOAD),
		       "cons_tres was loaded before the first use");
	cr_assert_eq(pthread_barrier_init(&t.start, NULL, THREADS), 0);
	for (i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, first_use, &t.answer[i]), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&t.start);

	fake = dlopen(PSIPLACE_FAKE_DIR "/select_cons_tres.so", RTLD_LAZY | RTLD_NOLOAD);
	cr_assert_not_null(fake, "the plugin did not load select_cons_tres.so from PluginDir");
	i = atomic_load(counter(fake, "fake_init_calls"));
	cr_expect_eq(i, 1, "cons_tres's init() ran %d times, expected once", i);
	i = atomic_load(counter(fake, "fake_node_init_calls"));
	cr_expect_eq(i, THREADS, "%d of %d calls reached cons_tres", i, THREADS);
	for (i = 0; i < THREADS; i++)
		cr_expect_eq(t.answer[i], FAKE_READY, "thread %d got %d (%s)", i, t.answer[i],
			     t.answer[i] == FAKE_NOT_READY ? "cons_tres called before its init() finished"
							   : "cons_tres not resolved");
	/* after the first use: the same answer, nothing resolved again */
	i = t.node_init();
	cr_expect_eq(i, FAKE_READY, "a later call got %d", i);
	i = atomic_load(counter(fake, "fake_init_calls"));
	cr_expect_eq(i, 1, "after a later call cons_tres's init() has run %d times", i);
	/* the plugin initialised cons_tres, so its fini() finalises it, once */
	cr_assert_not_null(fini);
	cr_expect_eq(fini(), 0);
	i = atomic_load(counter(fake, "fake_fini_calls"));
	cr_expect_eq(i, 1, "cons_tres's fini() ran %d times", i);
	i = atomic_load(counter(fake, "fake_other_calls"));
	cr_expect_eq(i, 0, "%d calls reached other cons_tres entry points", i);
	dlclose(fake);
}
