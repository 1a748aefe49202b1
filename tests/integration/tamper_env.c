/* LD_PRELOAD shim for srun: what a user can do to the environment of their
 * step's tasks as slurmstepd sees it (S_JOB_ENV).  srun is not setuid; its
 * libslurmfull calls env_array_for_step() through the PLT after merging the
 * user's environment, and that call writes SLURM_STEP_TASKS_PER_NODE,
 * SLURM_STEP_NODELIST and the rest.  This shim runs the real one, then sets
 * every NAME=VALUE of PSIPLACE_TEST_TAMPER (';'-separated) over it with
 * Slurm's own env_array_overwrite, so the launch request carries them. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*for_step_fn)(char ***, void *, void *, long, long, long);
typedef int (*overwrite_fn)(char ***, const char *, const char *);

/* Six integer-class arguments are passed in registers on x86-64 and
 * aarch64: forwarding them all keeps any release's signature. */
int env_array_for_step(char ***dest, void *a, void *b, long c, long d, long e)
{
	for_step_fn real = (for_step_fn)dlsym(RTLD_NEXT, "env_array_for_step");
	overwrite_fn set = (overwrite_fn)dlsym(RTLD_DEFAULT, "slurm_env_array_overwrite");
	const char *spec = getenv("PSIPLACE_TEST_TAMPER");
	char *copy, *item, *save = NULL;
	int rc;

	if (!real)
		abort();
	rc = real(dest, a, b, c, d, e);
	if (!spec || !set || !(copy = strdup(spec)))
		return rc;
	for (item = strtok_r(copy, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(item, '=');

		if (!eq)
			continue;
		*eq = '\0';
		set(dest, item, eq + 1);
		fprintf(stderr, "tamper_env: %s set\n", item);
	}
	free(copy);
	return rc;
}
