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

#define TPN "SLURM_STEP_TASKS_PER_NODE"
#define ACC "accepted: one count per node of the step, adding up to its tasks"

Test(step, tasks_per_node_agreeing_with_slurm_accepted)
{
	uint32_t *c;

	cr_assert_eq(psiplace_step_tasks_per_node("2(x3),1", TPN, 4, 7, 3, 1, &c, &err), 0, "%s", err.text);
	cr_assert_eq(c[0], 2);
	cr_assert_eq(c[3], 1);
	free(c);
	cr_assert_eq(psiplace_step_tasks_per_node("0,4", TPN, 2, 4, 0, 0, &c, &err), 0, "%s", err.text);
	free(c);
}

/* Issue 18 finding 1: the user's SLURM_STEP_TASKS_PER_NODE is held against
 * Slurm's S_JOB_NNODES, S_JOB_TOTAL_TASK_COUNT and this node's
 * S_JOB_LOCAL_TASK_COUNT; a sum is taken in 64 bits. */
Test(step, tasks_per_node_wrapping_32_bits_refused)
{
	uint32_t *c = (uint32_t *)1;

	cr_assert_eq(psiplace_step_tasks_per_node("1000000(x4294),967298", TPN, 4295, 2, 0, 2, &c, &err), -1);
	cr_assert_null(c);
	cr_assert_str_eq(err.text, TPN ": '1000000(x4294),967298' gives 4295 nodes and 4294967298 tasks (1000000 on node 0); Slurm's step has 4295 nodes, 2 tasks, 2 on node 0; " ACC);
	/* the whole 2^20 entries of 10^6: 1,048,576,000,000 tasks */
	cr_assert_eq(psiplace_step_tasks_per_node("1000000(x1048576)", TPN, 1, 0, 0, 0, &c, &err), -1);
	cr_assert(strstr(err.text, "gives 1048576 nodes and 1048576000000 tasks"), "%s", err.text);
}

Test(step, tasks_per_node_against_slurm_counts_refused)
{
	uint32_t *c;

	/* more nodes than Slurm's step */
	cr_assert_eq(psiplace_step_tasks_per_node("1,1,1", TPN, 2, 3, 0, 1, &c, &err), -1);
	cr_assert_str_eq(err.text, TPN ": '1,1,1' gives 3 nodes and 3 tasks (1 on node 0); Slurm's step has 2 nodes, 3 tasks, 1 on node 0; " ACC);
	/* another total */
	cr_assert_eq(psiplace_step_tasks_per_node("2,2", TPN, 2, 3, 1, 2, &c, &err), -1);
	cr_assert_str_eq(err.text, TPN ": '2,2' gives 2 nodes and 4 tasks (2 on node 1); Slurm's step has 2 nodes, 3 tasks, 2 on node 1; " ACC);
	/* this node's count is not its local tasks */
	cr_assert_eq(psiplace_step_tasks_per_node("3,1", TPN, 2, 4, 1, 3, &c, &err), -1);
	cr_assert_str_eq(err.text, TPN ": '3,1' gives 2 nodes and 4 tasks (1 on node 1); Slurm's step has 2 nodes, 4 tasks, 3 on node 1; " ACC);
	/* this node beyond the list */
	cr_assert_eq(psiplace_step_tasks_per_node("4", TPN, 1, 4, 1, 0, &c, &err), -1);
	cr_assert_str_eq(err.text, TPN ": '4' gives 1 node and 4 tasks (0 on node 1); Slurm's step has 1 node, 4 tasks, 0 on node 1; " ACC);
	/* a value that is no list: the parser's line */
	cr_assert_eq(psiplace_step_tasks_per_node("2,x", TPN, 2, 4, 0, 2, &c, &err), -1);
	cr_assert(!strncmp(err.text, TPN ": '2,x': ", strlen(TPN) + 9), "%s", err.text);
}

Test(step, counts_sum_is_64_bits)
{
	static const uint32_t c[] = { 4294967295u, 4294967295u, 2 };

	cr_assert_eq(psiplace_counts_sum(c, 3), 8589934592ull);
	cr_assert_eq(psiplace_counts_sum(c, 0), 0);
}
