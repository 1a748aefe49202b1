/* A stand-in select_cons_tres.so for test_resolve_once: every entry point
 * select/psiplace_cons_tres resolves (the plugin's own lists,
 * slurm_compat.h) and counters the test reads.  Its init() takes a while,
 * as a real plugin's may, so that a thread that does not wait for it calls
 * in before it has finished; select_p_node_init answers FAKE_READY only
 * after it has. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"

#include "fake_cons_tres.h"

const char plugin_name[] = "fake select/cons_tres for psiplace's tests";
const char plugin_type[] = "select/cons_tres";
const uint32_t plugin_id = 109;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

atomic_int fake_init_calls, fake_fini_calls, fake_node_init_calls, fake_other_calls;
static atomic_int initialised;

extern int init(void)
{
	struct timespec slow = { 0, 200 * 1000 * 1000 };

	atomic_fetch_add(&fake_init_calls, 1);
	nanosleep(&slow, NULL);
	atomic_store(&initialised, 1);
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	atomic_fetch_add(&fake_fini_calls, 1);
	return SLURM_SUCCESS;
}

/* What every entry point answers: node_init whether init() had finished,
 * the others 0 (NULL). */
static intptr_t answer(const char *name)
{
	if (strcmp(name, "node_init")) {
		atomic_fetch_add(&fake_other_calls, 1);
		return 0;
	}
	atomic_fetch_add(&fake_node_init_calls, 1);
	return atomic_load(&initialised) ? FAKE_READY : FAKE_NOT_READY;
}

extern int select_p_job_test(PSIPLACE_JOB_TEST_PARAMS)
{
	return (int)answer("job_test");
}

extern int select_p_job_expand(job_record_t *from_job_ptr, job_record_t *to_job_ptr)
{
	(void)from_job_ptr;
	(void)to_job_ptr;
	return (int)answer("job_expand");
}

extern int select_p_reconfigure(void)
{
	return (int)answer("reconfigure");
}

extern int select_p_job_begin(job_record_t *job_ptr)
{
	(void)job_ptr;
	return (int)answer("job_begin");
}

#define FAKE(ret, fail, name, params, args) \
	extern ret select_p_##name params   \
	{                                   \
		return (ret)answer(#name);  \
	}
PSIPLACE_FWD_ALL(FAKE)
#undef FAKE

#define FAKE_VOID(name, params, args)      \
	extern void select_p_##name params \
	{                                  \
		(void)answer(#name);       \
	}
PSIPLACE_FWD_VOID_FROM_26_05(FAKE_VOID)
#undef FAKE_VOID
