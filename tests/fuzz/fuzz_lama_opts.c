/* Fuzz the whole LAMA pipeline: option strings (one per line: map, bind,
 * MPPR, order, then a byte each for task count, node mix and flags) are
 * gathered, checked and mapped over up to three small nodes.  Every
 * mapping must bind inside its node, and the one-node entry point must
 * agree with the whole-step map on every node. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/lama.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const shapes[] = {
	"pack:2 core:2 pu:2", "pack:1 l3:2 core:2 pu:1", "pack:2 numa:2 core:1 pu:2",
};

static struct psiplace_topo topo[3];
static int loaded;

static void check_local(const struct psiplace_lama_opts *o, const struct psiplace_lama_map *m,
			unsigned nnodes, const struct psiplace_topo *const *t)
{
	hwloc_bitmap_t cpus[64], want = hwloc_bitmap_alloc();
	psiplace_error_t err;
	unsigned node, k, cnt;
	size_t r;

	for (k = 0; k < 64; k++)
		cpus[k] = hwloc_bitmap_alloc();
	for (node = 0; node < nnodes; node++) {
		for (cnt = 0, r = 0; r < m->ntasks; r++)
			cnt += m->task[r].node == node;
		if (cnt > 64)
			continue;
		if (psiplace_lama_map_local(o, t[node], cnt, cpus, NULL, &err) < 0)
			abort();
		for (k = 0, r = 0; r < m->ntasks; r++) {
			if (m->task[r].node != node)
				continue;
			psiplace_lama_task_sets(m, r, want, NULL);
			if (!hwloc_bitmap_isequal(want, cpus[k++]))
				abort();
		}
	}
	for (k = 0; k < 64; k++)
		hwloc_bitmap_free(cpus[k]);
	hwloc_bitmap_free(want);
}

static void run(const char *f[4], unsigned ntasks, unsigned mix, unsigned flags)
{
	static const char *const names[4] = { "--psi-lama-map", "--psi-lama-bind",
					      "--psi-lama-mppr", "--psi-lama-order" };
	const struct psiplace_topo *t[3];
	struct psiplace_lama_opts o;
	struct psiplace_lama_map m;
	psiplace_error_t err;
	unsigned nnodes = 1 + mix % 3, i;

	psiplace_lama_opts_init(&o);
	for (i = 0; i < 4; i++)
		if (f[i][0] && psiplace_lama_apply(&o, names[i], f[i], &err) < 0)
			return;
	if (flags & 1)
		psiplace_lama_apply(&o, "--psi-oversubscribe", NULL, &err);
	if (psiplace_lama_finish(&o, &err) < 0)
		return;
	for (i = 0; i < nnodes; i++)
		t[i] = &topo[(mix / 3 + i * (flags >> 1)) % 3];
	if (psiplace_lama_map(&o, nnodes, t, ntasks, &m, &err) < 0) {
		if (!err.text[0])
			abort();
		return;
	}
	check_local(&o, &m, nnodes, t);
	psiplace_lama_map_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512], *f[4] = { "", "", "", "" }, *p;
	unsigned i;
	size_t n = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;

	if (!loaded) {
		psiplace_error_t err;

		for (i = 0; i < 3; i++)
			if (psiplace_topo_load(shapes[i], NULL, &topo[i], &err) < 0)
				abort();
		loaded = 1;
	}
	if (n < 3)
		return 0;
	memcpy(buf, data + 3, n - 3);
	buf[n - 3] = '\0';
	for (i = 0, p = buf; i < 4 && p; i++) {
		f[i] = p;
		p = strchr(p, '\n');
		if (p)
			*p++ = '\0';
	}
	run((const char **)f, data[0] % 80, data[1], data[2] % 8);
	return 0;
}
