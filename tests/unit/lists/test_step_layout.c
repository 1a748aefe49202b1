/* A step's layout (common/lists/step_layout.c): tasks per node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/step_layout.h"

static psiplace_error_t err;

Test(step, tasks_per_node_list)
{
	uint32_t *c, n;

	cr_assert_eq(psiplace_tasks_per_node_parse("2(x3),1", "SLURM_STEP_TASKS_PER_NODE", &c, &n, &err), 0);
	cr_assert_eq(n, 4);
	cr_assert_eq(c[0], 2);
	cr_assert_eq(c[2], 2);
	cr_assert_eq(c[3], 1);
	free(c);
	cr_assert_eq(psiplace_tasks_per_node_parse("2(x0)", "SLURM_STEP_TASKS_PER_NODE", &c, &n, &err), -1);
	cr_assert_str_eq(err.text, "SLURM_STEP_TASKS_PER_NODE: '2(x0)': repeat count 0 at character 4; accepted: non-negative integers separated by commas, N(xK) for K repeats of N");
	cr_assert_eq(psiplace_tasks_per_node_parse("", "SLURM_JOB_CPUS_PER_NODE", &c, &n, &err), -1);
	cr_assert_str_eq(err.text, "SLURM_JOB_CPUS_PER_NODE: empty value; accepted: non-negative integers separated by commas, N(xK) for K repeats of N");
}
