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

	cr_assert_eq(psiplace_tasks_per_node_parse("2(x3),1", &c, &n, &err), 0);
	cr_assert_eq(n, 4);
	cr_assert_eq(c[0], 2);
	cr_assert_eq(c[2], 2);
	cr_assert_eq(c[3], 1);
	free(c);
	cr_assert_eq(psiplace_tasks_per_node_parse("2(x0)", &c, &n, &err), -1);
	cr_assert_str_eq(err.text, "SLURM_STEP_TASKS_PER_NODE: '2(x0)' is not a task count list such as 2(x3),1");
	cr_assert_eq(psiplace_tasks_per_node_parse("", &c, &n, &err), -1);
}
