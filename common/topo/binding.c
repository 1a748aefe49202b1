/* Per-task bindings shared by the placement backends and the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/binding.h"

struct psiplace_binding *psiplace_bindings_new(size_t n)
{
	struct psiplace_binding *b = calloc(n ? n : 1, sizeof(*b));
	size_t i;

	if (!b)
		return NULL;
	for (i = 0; i < n; i++) {
		b[i].cpus = hwloc_bitmap_alloc();
		b[i].mems = hwloc_bitmap_alloc();
		if (!b[i].cpus || !b[i].mems) {
			psiplace_bindings_free(b, i + 1);
			return NULL;
		}
	}
	return b;
}

void psiplace_bindings_free(struct psiplace_binding *b, size_t n)
{
	size_t i;

	if (!b)
		return;
	for (i = 0; i < n; i++) {
		hwloc_bitmap_free(b[i].cpus);
		hwloc_bitmap_free(b[i].mems);
	}
	free(b);
}

int psiplace_binding_mems_of(const struct psiplace_topo *t, hwloc_const_bitmap_t cpus,
			     hwloc_bitmap_t mems, psiplace_error_t *err)
{
	unsigned i;

	hwloc_bitmap_zero(mems);
	for (i = 0; i < t->npus; i++)
		if (t->pus[i].numa_os >= 0 && hwloc_bitmap_isset(cpus, t->pus[i].os_index) &&
		    hwloc_bitmap_set(mems, (unsigned)t->pus[i].numa_os) < 0)
			return psiplace_seterr(err, "memory binding: out of memory");
	return 0;
}

int psiplace_bitmap_list(hwloc_const_bitmap_t set, char *buf, size_t len)
{
	int k;

	if (!len)
		return -1;
	if (hwloc_bitmap_iszero(set))
		k = snprintf(buf, len, "-");
	else
		k = hwloc_bitmap_list_snprintf(buf, len, set);
	return k < 0 || (size_t)k >= len ? -1 : k;
}

static char *list_of(hwloc_const_bitmap_t set)
{
	char *s = NULL;

	if (hwloc_bitmap_iszero(set))
		return strdup("-");
	return hwloc_bitmap_list_asprintf(&s, set) < 0 ? NULL : s;
}

int psiplace_binding_lists(const struct psiplace_binding *b, char **cpus, char **mems)
{
	*cpus = list_of(b->cpus);
	*mems = list_of(b->mems);
	if (*cpus && *mems)
		return 0;
	free(*cpus);
	free(*mems);
	*cpus = *mems = NULL;
	return -1;
}

int psiplace_bindings_mask_list(const struct psiplace_binding *b, size_t n, char **out)
{
	size_t cap = 64 + n * 32, o = 0, i;
	char *list = malloc(cap), *mask = NULL;

	*out = NULL;
	if (!list)
		return -1;
	list[0] = '\0';
	for (i = 0; i < n; i++) {
		size_t len;

		if (hwloc_bitmap_taskset_asprintf(&mask, b[i].cpus) < 0)
			goto fail;
		len = strlen(mask);
		if (o + len + 2 > cap) {
			char *nl = realloc(list, cap = cap * 2 + len);

			if (!nl)
				goto fail;
			list = nl;
		}
		o += (size_t)sprintf(list + o, "%s%s", i ? "," : "", mask);
		free(mask);
		mask = NULL;
	}
	*out = list;
	return 0;
fail:
	free(mask);
	free(list);
	return -1;
}
