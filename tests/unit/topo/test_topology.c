/* The topology table on synthetic hwloc topologies. */
#include <criterion/criterion.h>

#include "psiplace/error.h"
#include "psiplace/topo.h"

Test(topo, two_sockets_smt_levels_and_threads)
{
	struct psiplace_topo t;
	psiplace_error_t err;

	cr_assert_eq(psiplace_topo_load("pack:2 core:2 pu:2", NULL, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.npus, 8);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_NODE], 1);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_BOARD], 0);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_SOCKET], 2);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_L3], 0);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_CORE], 4);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_HWTHREAD], 8);
	/* PU 5: socket 1, core 2, second thread */
	cr_assert_eq(t.pus[5].os_index, 5);
	cr_assert_eq(t.pus[5].obj[PSIPLACE_LEVEL_SOCKET], 1);
	cr_assert_eq(t.pus[5].obj[PSIPLACE_LEVEL_CORE], 2);
	cr_assert_eq(t.pus[5].thread, 1);
	cr_assert_eq(t.pus[4].thread, 0);
	cr_assert_eq(t.pus[5].obj[PSIPLACE_LEVEL_L2], -1);
	psiplace_topo_free(&t);
}

Test(topo, caches_and_restriction_keep_node_wide_indexes)
{
	struct psiplace_topo t;
	psiplace_error_t err;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	hwloc_bitmap_set_range(set, 4, 7); /* the second L3 */
	cr_assert_eq(psiplace_topo_load("pack:1 l3:2 core:4 pu:1", set, &t, &err), 0, "%s", err.text);
	cr_assert_eq(t.npus, 4);
	cr_assert_eq(t.count[PSIPLACE_LEVEL_L3], 1);
	cr_assert_eq(t.pus[0].os_index, 4);
	cr_assert_eq(t.pus[0].obj[PSIPLACE_LEVEL_L3], 1);
	cr_assert_eq(t.pus[0].obj[PSIPLACE_LEVEL_CORE], 4);
	psiplace_topo_free(&t);
	hwloc_bitmap_free(set);
}

Test(topo, bad_description_and_empty_restriction)
{
	struct psiplace_topo t;
	psiplace_error_t err;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	cr_assert_eq(psiplace_topo_load("pack:x", NULL, &t, &err), -1);
	cr_assert_str_eq(err.text, "topology 'pack:x' is neither a readable hwloc XML file nor a valid synthetic description (e.g. 'pack:2 core:4 pu:2')");
	hwloc_bitmap_set(set, 100);
	cr_assert_eq(psiplace_topo_load("pack:1 core:2 pu:1", set, &t, &err), -1);
	cr_assert_str_eq(err.text, "no processing unit of the topology is in the allowed CPU set");
	hwloc_bitmap_free(set);
}
