/* The Slurm input variables a request turns into
 * (common/request/slurm_input_env.c), per command and release. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/ctld_request.h"
#include "psiplace/user_request.h"
#include "request_test_util.h"

static const char *slurm_env_line(const struct psiplace_slurm_env *e)
{
	static char buf[1024];
	unsigned i;

	buf[0] = '\0';
	for (i = 0; i < e->n; i++) {
		strcat(buf, i ? " " : "");
		strcat(buf, e->var[i].name);
		strcat(buf, "=");
		strcat(buf, e->var[i].value);
	}
	return buf;
}

Test(request_slurm_env, srun_gets_cyclic_exclusive_overcommit_cpus)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_EXCLUSIVE="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_EXCLUSIVE=exclusive");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_EXCLUSIVE=exclusive");
	psiplace_user_request_free(&r);

	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST=", "PSI_OVERBOOK=", "PSI_TPP=2"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_CPU_BIND=none SLURM_OVERCOMMIT=1 SRUN_CPUS_PER_TASK=2");
	cr_assert_str_eq(e.notes[0], "overbook: srun cannot combine --exclusive with --overcommit; the job is not exclusive (use sbatch or salloc for an exclusive overbooked job)");
	/* Inside an allocation the step is not exclusive. */
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), false, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_CPU_BIND=none SLURM_OVERCOMMIT=1 SRUN_CPUS_PER_TASK=2");
	psiplace_user_request_free(&r);
}

/* 23.02+ never starts an exclusive job that overcommits a node's CPUs:
 * sbatch and salloc overbook without exclusivity there, and say so. */
Test(request_slurm_env, overbooked_allocations_are_exclusive_only_where_slurm_starts_them)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_OVERBOOK="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_EXCLUSIVE=exclusive SALLOC_OVERCOMMIT=1");
	cr_assert_eq(e.nnotes, 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(24, 11), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_OVERCOMMIT=1");
	cr_assert_eq(e.nnotes, 1);
	cr_assert_str_eq(e.notes[0], "overbook: Slurm 24.11 never starts an exclusive job with more tasks than a node's CPUs; the job is not exclusive (for whole nodes: -N and --exclusive, and --psi-overbook on the steps)");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(26, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_OVERCOMMIT=1");
	cr_assert_str_eq(e.notes[0], "overbook: Slurm 26.05 never starts an exclusive job with more tasks than a node's CPUs; the job is not exclusive (for whole nodes: -N and --exclusive, and --psi-overbook on the steps)");
	psiplace_user_request_free(&r);
}

/* srun reads SRUN_CPUS_PER_TASK up to 23.02 and SLURM_CPUS_PER_TASK from
 * 23.11 (doc/select.md): PSI_TPP must reserve CPUs on every release. */
Test(request_slurm_env, cpus_per_task_variable_follows_the_running_release)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_TPP=2"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(23, 2), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SRUN_CPUS_PER_TASK=2");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(23, 11), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_CPUS_PER_TASK=2");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(26, 5), true, false, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_CPU_BIND=none SLURM_CPUS_PER_TASK=2");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, loop_nodes_first_balances_a_new_allocation)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;
	struct psiplace_slurm_cmdline sl = { .ntasks = 5, .nnodes = 2, .cpus_per_task = -1 };

	cr_assert_eq(gather(ENV("PSI_LOOP_NODES_FIRST="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SLURM_DISTRIBUTION=cyclic SLURM_NTASKS_PER_NODE=3 SLURM_CPU_BIND=none");
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SBATCH, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "SBATCH_DISTRIBUTION=cyclic");
	cr_assert_str_eq(e.notes[0], "loop-nodes-first: sbatch has no tasks-per-node variable; give --ntasks-per-node=3 for a balanced allocation");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, user_choice_wins)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;
	const char *const *env = ENV("PSI_LOOP_NODES_FIRST=", "PSI_TPP=2", "SLURM_DISTRIBUTION=block");

	cr_assert_eq(gather(env, NULL, NULL, true, &r), 0);
	struct psiplace_slurm_cmdline sl = { .set = PSIPLACE_SLURM_CPUS_PER_TASK | PSIPLACE_SLURM_CPU_BIND, .ntasks = -1, .nnodes = -1, .cpus_per_task = -1 };

	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SRUN, PSIPLACE_SLURM_RELEASE(22, 5), true, false, &sl, fake_getenv, (void *)env, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "");
	cr_assert_eq(e.nnotes, 3);
	cr_assert_str_eq(e.notes[0], "loop-nodes-first: not setting SLURM_DISTRIBUTION=cyclic, you chose SLURM_DISTRIBUTION yourself");
	cr_assert_str_eq(e.notes[1], "psiplace binds the tasks: not setting SLURM_CPU_BIND=none, you chose --cpu-bind yourself");
	cr_assert_str_eq(e.notes[2], "PSI_TPP: not setting SRUN_CPUS_PER_TASK=2, you chose -c/--cpus-per-task yourself");
	psiplace_user_request_free(&r);
}

Test(request_slurm_env, salloc_immediate_under_psi_strict_and_hostfile)
{
	struct psiplace_user_request r;
	struct psiplace_slurm_env e;

	cr_assert_eq(gather(ENV("PSI_HOSTFILE=" PSIPLACE_TEST_DATA "/psi_hostfile"), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, true, NULL, fake_getenv, NULL, "/tmp/hf", &e);
	cr_assert_str_eq(slurm_env_line(&e), "SALLOC_IMMEDIATE=1 SLURM_HOSTFILE=/tmp/hf");
	psiplace_user_request_free(&r);
	cr_assert_eq(gather(ENV("PSI_HOSTS=n1", "PSI_WAIT="), NULL, NULL, true, &r), 0);
	psiplace_user_request_slurm_env(&r, PSIPLACE_CLIENT_SALLOC, PSIPLACE_SLURM_RELEASE(22, 5), true, true, NULL, fake_getenv, NULL, NULL, &e);
	cr_assert_str_eq(slurm_env_line(&e), "");
	psiplace_user_request_free(&r);
}
