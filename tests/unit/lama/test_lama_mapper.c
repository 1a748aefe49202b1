/* LAMA mapping golden outputs on synthetic topologies: "NODE:CPUS" per
 * rank, rank 0 first. */
#include "lama_test_util.h"

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })

TestSuite(lama_map, .fini = free_topos);

Test(lama_map, changeset_example_socket_natural_two_sockets)
{
	/* mpirun -np 8 --bind-to core --map-by socket --order n: [0 2 4 6] [1 3 5 7] */
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 8,
			KV("--psi-map-by", "socket", "--psi-bind-to", "core")),
		   "0:0 0:4 0:1 0:5 0:2 0:6 0:3 0:7");
}

Test(lama_map, changeset_example_sequential_orders_by_hardware)
{
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 8,
			KV("--psi-map-by", "socket", "--psi-bind-to", "core", "--psi-lama-order", "s")),
		   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7");
}

Test(lama_map, default_map_is_by_core_on_topologies_without_caches)
{
	/* Open MPI 1.8 placed nothing here: absent levels are transparent. */
	EXPECT_MAP(map1("pack:2 core:4 pu:2", 1, 10, NULL),
		   "0:0-1 0:2-3 0:4-5 0:6-7 0:8-9 0:10-11 0:12-13 0:14-15 0:0-1 0:2-3");
}

Test(lama_map, measured_open_mpi_hwthread_and_core_orders)
{
	EXPECT_MAP(map1("pack:2 core:2 pu:2", 1, 8, KV("--psi-lama-map", "hcsbn", "--psi-lama-bind", "1h")),
		   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7");
	EXPECT_MAP(map1("pack:2 core:2 pu:2", 1, 8, KV("--psi-lama-map", "chsbn", "--psi-lama-bind", "1h")),
		   "0:0 0:2 0:1 0:3 0:4 0:6 0:5 0:7");
}

Test(lama_map, node_letter_innermost_alternates_nodes)
{
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 2, 6, KV("--psi-map-by", "node")),
		   "0:0 1:0 0:2 1:2 0:1 1:1");
}

/* Two nodes of pack:2 core:2 pu:2 (PUs 0-1 core 0, 2-3 core 1 in socket
 * 0; 4-7 in socket 1), 16 tasks bound to their thread: n in every
 * position of the map, and h and c swapped. */
static char *every_position(const char *map)
{
	return map1("pack:2 core:2 pu:2", 2, 16, KV("--psi-lama-map", map, "--psi-lama-bind", "1h"));
}

Test(lama_map, every_map_letter_position)
{
	EXPECT_MAP(every_position("nsch"),
		   "0:0 1:0 0:4 1:4 0:2 1:2 0:6 1:6 0:1 1:1 0:5 1:5 0:3 1:3 0:7 1:7");
	EXPECT_MAP(every_position("snch"),
		   "0:0 0:4 1:0 1:4 0:2 0:6 1:2 1:6 0:1 0:5 1:1 1:5 0:3 0:7 1:3 1:7");
	EXPECT_MAP(every_position("scnh"),
		   "0:0 0:4 0:2 0:6 1:0 1:4 1:2 1:6 0:1 0:5 0:3 0:7 1:1 1:5 1:3 1:7");
	EXPECT_MAP(every_position("schn"),
		   "0:0 0:4 0:2 0:6 0:1 0:5 0:3 0:7 1:0 1:4 1:2 1:6 1:1 1:5 1:3 1:7");
	EXPECT_MAP(every_position("hcsn"),
		   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 1:0 1:1 1:2 1:3 1:4 1:5 1:6 1:7");
	EXPECT_MAP(every_position("chsn"),
		   "0:0 0:2 0:1 0:3 0:4 0:6 0:5 0:7 1:0 1:2 1:1 1:3 1:4 1:6 1:5 1:7");
	EXPECT_MAP(every_position("hnsc"),
		   "0:0 0:1 1:0 1:1 0:4 0:5 1:4 1:5 0:2 0:3 1:2 1:3 0:6 0:7 1:6 1:7");
}

Test(lama_map, cache_levels_l2_and_l3)
{
	/* one package, 2 L3 of 2 L2 of 2 cores: L2 pairs 0-1 2-3 4-5 6-7 */
	const char *d = "pack:1 l3:2 l2:2 core:2 pu:1";

	EXPECT_MAP(map1(d, 1, 8, KV("--psi-map-by", "l2cache")),
		   "0:0 0:2 0:4 0:6 0:1 0:3 0:5 0:7");
	EXPECT_MAP(map1(d, 1, 8, KV("--psi-map-by", "l3cache")),
		   "0:0 0:4 0:1 0:5 0:2 0:6 0:3 0:7");
	EXPECT_MAP(map1(d, 1, 4, KV("--psi-map-by", "l3cache", "--psi-bind-to", "l3cache")),
		   "0:0-3 0:4-7 0:0-3 0:4-7");
	EXPECT_MAP(map1(d, 1, 4, KV("--psi-lama-map", "L2L3cnh", "--psi-lama-bind", "1L2")),
		   "0:0-1 0:2-3 0:4-5 0:6-7");
}

Test(lama_map, cache_level_l1)
{
	EXPECT_MAP(map1("pack:2 l2:2 l1:2 core:1 pu:1", 1, 8, KV("--psi-map-by", "l1cache")),
		   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7");
	EXPECT_MAP(map1("pack:2 l2:2 l1:2 core:1 pu:1", 1, 4,
			KV("--psi-lama-map", "L1L2snch", "--psi-lama-bind", "1L2")),
		   "0:0-1 0:0-1 0:2-3 0:2-3");
}

Test(lama_map, numa_level_map_bind_and_memory)
{
	const struct psiplace_topo *t = topo("pack:2 numa:2 core:2 pu:1");
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	hwloc_bitmap_t c = hwloc_bitmap_alloc(), mem = hwloc_bitmap_alloc();
	psiplace_error_t err;

	EXPECT_MAP(map_nodes(1, &t, 8, KV("--psi-map-by", "numa")),
		   "0:0 0:2 0:4 0:6 0:1 0:3 0:5 0:7");
	opts(&o, KV("--psi-map-by", "numa", "--psi-bind-to", "numa"));
	cr_assert_eq(psiplace_lama_map(&o, 1, &t, 4, &m, &err), 0, "%s", err.text);
	psiplace_lama_task_sets(&m, 3, c, mem);
	cr_assert_eq(hwloc_bitmap_first(c), 6);
	cr_assert_eq(hwloc_bitmap_last(c), 7);
	cr_assert_eq(hwloc_bitmap_first(mem), 3);
	cr_assert_eq(hwloc_bitmap_weight(mem), 1);
	psiplace_lama_map_free(&m);
	hwloc_bitmap_free(c);
	hwloc_bitmap_free(mem);
}

Test(lama_map, bind_width_two_cores_takes_aligned_pairs_in_a_socket)
{
	/* Open MPI 1.8.8 measured 0-1, 2-3 */
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 4, KV("--psi-lama-bind", "2c")),
		   "0:0-1 0:2-3 0:4-5 0:6-7");
	EXPECT_MAP(map1("pack:2 core:4 pu:2", 1, 8, KV("--psi-lama-bind", "2c")),
		   "0:0-3 0:4-7 0:8-11 0:12-15 0:0-3 0:4-7 0:8-11 0:12-15");
}

Test(lama_map, bind_width_never_crosses_the_socket)
{
	/* 3 cores of 4: one window per socket, the rest of a socket skipped */
	EXPECT_MAP(map1("pack:2 core:4 pu:2", 1, 4, KV("--psi-lama-bind", "3c")),
		   "0:0-5 0:8-13 0:0-5 0:8-13");
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 3, KV("--psi-lama-bind", "3c")),
		   "error: LAMA detected oversubscription after mapping 2 of 3 processes (map cL1L2L3sNbnh, bind 3c, mppr none, order n); --psi-oversubscribe allows it");
}

Test(lama_map, bind_width_two_threads_stays_in_a_core)
{
	EXPECT_MAP(map1("pack:1 core:2 pu:2", 1, 2, KV("--psi-lama-map", "hcsbn", "--psi-lama-bind", "2h")),
		   "0:0-1 0:2-3");
	EXPECT_MAP(map1("pack:4 core:1 pu:1", 1, 2, KV("--psi-lama-map", "sbnch", "--psi-lama-bind", "2s")),
		   "0:0-1 0:2-3");
}

Test(lama_map, wider_than_any_object_is_a_no_progress_error)
{
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 1, 1, KV("--psi-lama-bind", "4c")),
		   "error: LAMA cannot place process 0 of 1: a whole pass found no free location (map cL1L2L3sNbnh, bind 4c, mppr none, order n)");
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 1, 1, KV("--psi-lama-bind", "4c", "--psi-oversubscribe", NULL)),
		   "error: LAMA cannot place process 0 of 1: a whole pass found no free location (map cL1L2L3sNbnh, bind 4c, mppr none, order n)");
}

Test(lama_map, mppr_per_socket_fails_without_oversubscribe)
{
	/* Open MPI 1.8.8: "detected oversubscription after mapping 2 of 3" */
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 3, KV("--psi-lama-mppr", "1:s")),
		   "error: LAMA detected oversubscription after mapping 2 of 3 processes (map cL1L2L3sNbnh, bind 1c, mppr 1:s, order n); --psi-oversubscribe allows it");
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 2, KV("--psi-lama-mppr", "1:s")), "0:0 0:4");
}

Test(lama_map, oversubscribe_drops_mppr_and_cycles_from_the_start)
{
	/* Open MPI 1.8.8: rank 2 goes back to PU 0 */
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 1, 3, KV("--psi-lama-mppr", "1:s", "--psi-oversubscribe", NULL)),
		   "0:0 0:4 0:0");
	EXPECT_MAP(map1("pack:1 core:2 pu:1", 1, 5, KV("--psi-oversubscribe", NULL)),
		   "0:0 0:1 0:0 0:1 0:0");
	EXPECT_MAP(map1("pack:1 core:2 pu:1", 1, 3, NULL),
		   "error: LAMA detected oversubscription after mapping 2 of 3 processes (map cL1L2L3sNbnh, bind 1c, mppr none, order n); --psi-oversubscribe allows it");
}

Test(lama_map, mppr_at_node_core_and_below_the_binding)
{
	EXPECT_MAP(map1("pack:2 core:4 pu:1", 2, 4, KV("--psi-lama-map", "csbnh", "--psi-lama-mppr", "2:n")),
		   "0:0 0:1 1:0 1:1");
	/* one per core with threads mapped first: second threads skipped */
	EXPECT_MAP(map1("pack:1 core:2 pu:2", 1, 2, KV("--psi-lama-map", "hcsbn", "--psi-lama-mppr", "1:c")),
		   "0:0-1 0:2-3");
	/* a task bound to a socket counts on each of its cores */
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 1, 3, KV("--psi-lama-map", "csbnh", "--psi-lama-bind", "1s",
						  "--psi-lama-mppr", "1:c")),
		   "error: LAMA detected oversubscription after mapping 2 of 3 processes (map csbnh, bind 1s, mppr 1:c, order n); --psi-oversubscribe allows it");
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 1, 4, KV("--psi-lama-map", "csbnh", "--psi-lama-bind", "1s",
						  "--psi-lama-mppr", "2:s")),
		   "0:0-1 0:0-1 0:2-3 0:2-3");
	EXPECT_MAP(map1("pack:1 l3:2 core:2 pu:1", 1, 3, KV("--psi-lama-mppr", "1:L3")),
		   "error: LAMA detected oversubscription after mapping 2 of 3 processes (map cL1L2L3sNbnh, bind 1c, mppr 1:L3, order n); --psi-oversubscribe allows it");
}

Test(lama_map, sequential_numbers_node_by_node_in_os_order)
{
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 2, 8, KV("--psi-map-by", "node", "--psi-lama-order", "s")),
		   "0:0 0:1 0:2 0:3 1:0 1:1 1:2 1:3");
	EXPECT_MAP(map1("pack:2 core:2 pu:1", 2, 8, KV("--psi-map-by", "node")),
		   "0:0 1:0 0:2 1:2 0:1 1:1 0:3 1:3");
}

Test(lama_map, unbound_tasks_have_no_cpus)
{
	EXPECT_MAP(map1("pack:1 core:2 pu:1", 1, 2, KV("--psi-bind-to", "none")), "0:- 0:-");
}

Test(lama_map, heterogeneous_pair_skips_absent_coordinates)
{
	const struct psiplace_topo *t[2] = { topo("pack:2 core:4 pu:1"), topo("pack:1 core:2 pu:2") };

	EXPECT_MAP(map_nodes(2, t, 10, KV("--psi-lama-map", "nsbch")),
		   "0:0 1:0-1 0:4 0:1 1:2-3 0:5 0:2 0:6 0:3 0:7");
	EXPECT_MAP(map_nodes(2, t, 12, NULL),
		   "0:0 0:1 0:2 0:3 0:4 0:5 0:6 0:7 1:0-1 1:2-3 1:0-1 1:2-3");
}

Test(lama_map, heterogeneous_cache_levels)
{
	const struct psiplace_topo *t[2] = { topo("pack:1 l3:2 core:2 pu:1"), topo("pack:2 core:1 pu:1") };

	EXPECT_MAP(map_nodes(2, t, 6, KV("--psi-map-by", "l3cache", "--psi-bind-to", "l3cache")),
		   "0:0-1 0:2-3 0:0-1 0:2-3 1:0 1:1");
}

/* The per-node entry point gives every node's tasks the same CPUs as the
 * whole-step map, knowing only that node. */
static void check_local_matches(unsigned nnodes, const struct psiplace_topo *const *t, size_t n,
				const char *const *kv)
{
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	psiplace_error_t err;
	hwloc_bitmap_t want = hwloc_bitmap_alloc(), cpus[64], mems[64];
	unsigned node, k;
	size_t r;

	opts(&o, kv);
	cr_assert_eq(psiplace_lama_map(&o, nnodes, t, n, &m, &err), 0, "%s", err.text);
	for (k = 0; k < 64; k++) {
		cpus[k] = hwloc_bitmap_alloc();
		mems[k] = hwloc_bitmap_alloc();
	}
	for (node = 0; node < nnodes; node++) {
		unsigned cnt = 0;

		for (r = 0; r < n; r++)
			cnt += m.task[r].node == node;
		cr_assert_leq(cnt, 64);
		cr_assert_eq(psiplace_lama_map_local(&o, t[node], cnt, cpus, mems, &err), 0,
			     "%s", err.text);
		for (k = 0, r = 0; r < n; r++) {
			if (m.task[r].node != node)
				continue;
			psiplace_lama_task_sets(&m, r, want, NULL);
			cr_assert(hwloc_bitmap_isequal(want, cpus[k]), "node %u task %zu", node, r);
			k++;
		}
	}
	for (k = 0; k < 64; k++) {
		hwloc_bitmap_free(cpus[k]);
		hwloc_bitmap_free(mems[k]);
	}
	hwloc_bitmap_free(want);
	psiplace_lama_map_free(&m);
}

Test(lama_map, local_map_equals_whole_step_map_on_each_node)
{
	const struct psiplace_topo *t[3] = { topo("pack:2 core:4 pu:1"), topo("pack:1 core:2 pu:2"),
					     topo("pack:2 l3:2 core:2 pu:2") };

	check_local_matches(3, t, 20, KV("--psi-lama-map", "nsbch"));
	check_local_matches(3, t, 20, NULL);
	check_local_matches(3, t, 31, KV("--psi-oversubscribe", NULL));
	check_local_matches(3, t, 14, KV("--psi-map-by", "socket", "--psi-lama-order", "s"));
	check_local_matches(3, t, 12, KV("--psi-lama-bind", "2c", "--psi-map-by", "node"));
	check_local_matches(3, t, 9, KV("--psi-lama-mppr", "1:s", "--psi-oversubscribe", NULL));
	check_local_matches(3, t, 7, KV("--psi-lama-mppr", "1:c,3:n", "--psi-map-by", "hwthread"));
}

Test(lama_map, fixed_counts_per_node_follow_lama_order)
{
	const struct psiplace_topo *t = topo("pack:2 core:2 pu:1"), *all[2] = { t, t };
	static const unsigned counts[2] = { 3, 1 };
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	psiplace_error_t err;

	opts(&o, KV("--psi-map-by", "node"));
	cr_assert_eq(psiplace_lama_map_counts(&o, 2, all, counts, &m, &err), 0, "%s", err.text);
	EXPECT_MAP(render(&m), "0:0 1:0 0:2 0:1");
	psiplace_lama_map_free(&m);
}

Test(lama_map, restricted_to_the_step_cpus)
{
	struct psiplace_topo t;
	const struct psiplace_topo *tp = &t;
	hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
	psiplace_error_t err;

	hwloc_bitmap_set_range(allowed, 1, 5);
	cr_assert_eq(psiplace_topo_load("pack:2 core:4 pu:1", allowed, &t, &err), 0, "%s", err.text);
	EXPECT_MAP(map_nodes(1, &tp, 5, NULL), "0:1 0:2 0:3 0:4 0:5");
	/* socket 0 keeps cores 1-3: one pair fits there, socket 1 keeps 4-5 */
	EXPECT_MAP(map_nodes(1, &tp, 2, KV("--psi-lama-bind", "2c")), "0:1-2 0:4-5");
	psiplace_topo_free(&t);
	hwloc_bitmap_free(allowed);
}
