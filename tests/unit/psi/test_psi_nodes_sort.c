/* PSI_NODES_SORT orders (common/psi/psi_nodes_sort.c): ratings per
 * thread, more threads first, index; weight tiers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"
#include "psiplace/psi_values.h"

static struct psiplace_node mk(uint32_t index, uint32_t threads, uint32_t alloc, double load1,
			       uint64_t weight)
{
	struct psiplace_node n;

	memset(&n, 0, sizeof(n));
	n.index = index;
	n.cpus = n.threads = threads;
	n.alloc_cpus = alloc;
	n.load1 = n.load5 = n.load15 = load1;
	n.weight = weight;
	return n;
}

Test(psi_sort, ratings_per_thread_then_more_threads_then_index)
{
	struct psiplace_node nodes[4] = { mk(0, 8, 4, 0.5, 1), mk(1, 16, 8, 0, 1), mk(2, 8, 0, 4, 1),
					  mk(3, 8, 4, 0, 1) };
	uint32_t order[4] = { 0, 1, 2, 3 };

	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_PROC, false, nodes, order, 4, NULL), 0);
	/* 2: 0/8; then 0.5 each: 1 (16 threads) before 0 and 3 (index). */
	cr_assert_eq(order[0], 2);
	cr_assert_eq(order[1], 1);
	cr_assert_eq(order[2], 0);
	cr_assert_eq(order[3], 3);
	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_LOAD1, false, nodes, order, 4, NULL), 0);
	cr_assert_eq(order[0], 1);
	cr_assert_eq(order[1], 3);
	cr_assert_eq(order[2], 0);
	cr_assert_eq(order[3], 2);
	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_PROC_LOAD, false, nodes, order, 4, NULL), 0);
	/* 1: 8/16, 2: 4/8, 3: 4/8 tie at 0.5: more threads first, then index. */
	cr_assert_eq(order[0], 1);
	cr_assert_eq(order[1], 2);
	cr_assert_eq(order[2], 3);
	cr_assert_eq(order[3], 0);
}

Test(psi_sort, none_keeps_list_order_and_weight_stays_major)
{
	struct psiplace_node nodes[3] = { mk(0, 8, 0, 0, 2), mk(1, 8, 8, 0, 1), mk(2, 8, 0, 0, 1) };
	uint32_t order[3] = { 2, 0, 1 };

	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_NONE, true, nodes, order, 3, NULL), 0);
	cr_assert_eq(order[0], 2);
	cr_assert_eq(order[1], 0);
	cr_assert_eq(order[2], 1);
	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_PROC, false, nodes, order, 3, NULL), 0);
	cr_assert_eq(order[0], 2); /* weight 1, rating 0 */
	cr_assert_eq(order[1], 1); /* weight 1, rating 1 */
	cr_assert_eq(order[2], 0); /* weight 2 */
	cr_assert_eq(psiplace_psi_sort(PSIPLACE_SORT_PROC, true, nodes, order, 3, NULL), 0);
	cr_assert_eq(order[0], 0);
	cr_assert_eq(order[1], 2);
	cr_assert_eq(order[2], 1);
}
