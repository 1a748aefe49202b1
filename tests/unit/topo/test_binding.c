/* Slurm's mask list of a node's bindings (SLURM_CPU_BIND_LIST and
 * SLURM_CPU_BIND): whole at any size (RELIABILITY R3: it was cut at 8,192
 * bytes: one task per CPU of a 256-CPU node goes beyond). */
#include <criterion/criterion.h>
#include <string.h>

#include "psiplace/binding.h"

Test(binding, mask_list_of_256_tasks_on_256_cpus_is_whole)
{
	struct psiplace_binding *b = psiplace_bindings_new(256);
	hwloc_bitmap_t back = hwloc_bitmap_alloc();
	char *list, *sp = NULL, *w;
	unsigned i;

	cr_assert_not_null(b);
	for (i = 0; i < 256; i++)
		hwloc_bitmap_set(b[i].cpus, (int)i);
	cr_assert_eq(psiplace_bindings_mask_list(b, 256, &list), 0);
	/* task 255 holds CPU 255: "0x8" and 63 zeros */
	cr_assert_gt(strlen(list), 8192, "longer than the old cut: %zu", strlen(list));
	cr_assert(!strncmp(list, "0x1,0x2,0x4,0x8,0x10,", 21), "%.30s", list);
	cr_assert(strstr(list, ",0x8000000000000000000000000000000000000000000000000000000000000000") != NULL);
	for (i = 0, w = strtok_r(list, ",", &sp); w; w = strtok_r(NULL, ",", &sp), i++) {
		cr_assert_lt(i, 256);
		cr_assert_eq(hwloc_bitmap_taskset_sscanf(back, w), 0, "%s", w);
		cr_assert(hwloc_bitmap_isequal(back, b[i].cpus), "task %u: %s", i, w);
	}
	cr_assert_eq(i, 256, "every task's mask is in the list");
	free(list);
	hwloc_bitmap_free(back);
	psiplace_bindings_free(b, 256);
}

Test(binding, an_unbound_task_is_0x0_and_no_task_an_empty_list)
{
	struct psiplace_binding *b = psiplace_bindings_new(2);
	char *list;

	hwloc_bitmap_set(b[0].cpus, 5);
	cr_assert_eq(psiplace_bindings_mask_list(b, 2, &list), 0);
	cr_assert_str_eq(list, "0x20,0x0");
	free(list);
	cr_assert_eq(psiplace_bindings_mask_list(b, 0, &list), 0);
	cr_assert_str_eq(list, "");
	free(list);
	psiplace_bindings_free(b, 2);
}

/* PSIPLACE_CPUS and PSIPLACE_MEMS of a task on a node of 16,384 PUs, every
 * other one: a CPU list of ~45,000 bytes (issue 18 finding 6: the task got
 * "?" for its CPUs and an unwritten 1,024-byte buffer for its NUMA nodes). */
Test(binding, lists_of_a_task_with_thousands_of_cpus_are_whole)
{
	struct psiplace_binding *b = psiplace_bindings_new(1);
	hwloc_bitmap_t back = hwloc_bitmap_alloc();
	char *cpus = NULL, *mems = NULL, old[4096];
	unsigned i;

	cr_assert_not_null(b);
	for (i = 0; i < 16384; i += 2)
		hwloc_bitmap_set(b->cpus, (int)i);
	for (i = 0; i < 1024; i += 3)
		hwloc_bitmap_set(b->mems, (int)i);
	/* the old fixed buffer cannot hold it */
	cr_assert_eq(psiplace_bitmap_list(b->cpus, old, sizeof(old)), -1);
	cr_assert_eq(psiplace_binding_lists(b, &cpus, &mems), 0);
	cr_assert_gt(strlen(cpus), 40000, "%zu", strlen(cpus));
	cr_assert(!strncmp(cpus, "0,2,4,6,", 8), "%.20s", cpus);
	cr_assert(!strcmp(cpus + strlen(cpus) - 12, ",16380,16382"), "%s", cpus + strlen(cpus) - 12);
	cr_assert_eq(hwloc_bitmap_list_sscanf(back, cpus), 0);
	cr_assert(hwloc_bitmap_isequal(back, b->cpus));
	cr_assert_eq(hwloc_bitmap_list_sscanf(back, mems), 0);
	cr_assert(hwloc_bitmap_isequal(back, b->mems));
	free(cpus);
	free(mems);
	hwloc_bitmap_zero(b->cpus);
	hwloc_bitmap_zero(b->mems);
	cr_assert_eq(psiplace_binding_lists(b, &cpus, &mems), 0);
	cr_assert_str_eq(cpus, "-");
	cr_assert_str_eq(mems, "-");
	free(cpus);
	free(mems);
	hwloc_bitmap_free(back);
	psiplace_bindings_free(b, 1);
}
