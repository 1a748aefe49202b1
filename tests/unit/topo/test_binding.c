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
