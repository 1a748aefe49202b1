/* The heaps of the replay (ends, traced starts, resize completions):
 * binary min-heaps of (time, job), ties by job. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/sim.h"
#include "sim_replay.h"

/* A growing heap (cap > 0) full: twice the room; false out of memory. */
static bool room_for_one(struct heap *h)
{
	int64_t *k;
	uint32_t *v;

	if (!h->cap || h->n < h->cap)
		return true;
	if (!(k = realloc(h->key, 2 * h->cap * sizeof(*k))))
		return false;
	h->key = k;
	if (!(v = realloc(h->val, 2 * h->cap * sizeof(*v))))
		return false;
	h->val = v;
	h->cap *= 2;
	return true;
}

void sim_heap_push(struct heap *h, int64_t key, uint32_t val)
{
	size_t i;

	if (!room_for_one(h)) {
		h->oom = true;
		return;
	}
	i = h->n++;

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (h->key[p] < key || (h->key[p] == key && h->val[p] < val))
			break;
		h->key[i] = h->key[p];
		h->val[i] = h->val[p];
		i = p;
	}
	h->key[i] = key;
	h->val[i] = val;
}

void sim_heap_pop(struct heap *h)
{
	int64_t key = h->key[--h->n];
	uint32_t val = h->val[h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && (h->key[c + 1] < h->key[c] ||
				     (h->key[c + 1] == h->key[c] && h->val[c + 1] < h->val[c])))
			c++;
		if (key < h->key[c] || (key == h->key[c] && val < h->val[c]))
			break;
		h->key[i] = h->key[c];
		h->val[i] = h->val[c];
		i = c;
	}
	h->key[i] = key;
	h->val[i] = val;
}
