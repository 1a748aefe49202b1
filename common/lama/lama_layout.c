/* LAMA's node order against Slurm's task layout: which distribution
 * (block, cyclic, arbitrary) yields it, and checking a layout, with all
 * topologies or on one node alone. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lama_shape.h"
#include "psiplace/error.h"

const char *psiplace_lama_dist_name(enum psiplace_lama_dist d)
{
	switch (d) {
	case PSIPLACE_LAMA_DIST_BLOCK: return "block";
	case PSIPLACE_LAMA_DIST_CYCLIC: return "cyclic";
	default: return "arbitrary";
	}
}

/* Slurm's cyclic for the same counts: one task per node with tasks left,
 * in node order, round after round. */
static int is_cyclic(const unsigned *seq, size_t n, unsigned nnodes, unsigned *left)
{
	unsigned *active = malloc((nnodes ? nnodes : 1) * sizeof(unsigned)), na = 0, k, pos = 0;
	size_t i;
	int ok = 1;

	if (!active)
		return 0;
	for (k = 0; k < nnodes; k++)
		if (left[k])
			active[na++] = k;
	for (i = 0; i < n && ok; i++) {
		unsigned want = active[pos];

		ok = seq[i] == want;
		left[want]--;
		if (++pos == na) {
			unsigned j = 0;

			for (k = 0; k < na; k++)
				if (left[active[k]])
					active[j++] = active[k];
			na = j;
			pos = 0;
		}
	}
	free(active);
	return ok;
}

int psiplace_lama_slurm_layout(enum psiplace_lama_dist d, const unsigned *tasks_per_node,
			       unsigned nnodes, unsigned *node_of_rank)
{
	size_t r = 0;
	unsigned k, round, more = 1;

	if (d == PSIPLACE_LAMA_DIST_BLOCK) {
		for (k = 0; k < nnodes; k++)
			for (round = 0; round < tasks_per_node[k]; round++)
				node_of_rank[r++] = k;
		return 0;
	}
	if (d != PSIPLACE_LAMA_DIST_CYCLIC)
		return -1;
	for (round = 0; more; round++) {
		more = 0;
		for (k = 0; k < nnodes; k++)
			if (tasks_per_node[k] > round) {
				node_of_rank[r++] = k;
				more = 1;
			}
	}
	return 0;
}

enum psiplace_lama_dist psiplace_lama_classify(const unsigned *seq, size_t n, unsigned nnodes)
{
	unsigned *left;
	size_t i;
	int sorted = 1, cyc;

	for (i = 0; i < n; i++) {
		if (seq[i] >= nnodes)
			return PSIPLACE_LAMA_DIST_ARBITRARY;
		if (i && seq[i] < seq[i - 1])
			sorted = 0;
	}
	if (sorted)
		return PSIPLACE_LAMA_DIST_BLOCK;
	left = calloc(nnodes, sizeof(unsigned));
	if (!left)
		return PSIPLACE_LAMA_DIST_ARBITRARY;
	for (i = 0; i < n; i++)
		left[seq[i]]++;
	cyc = is_cyclic(seq, n, nnodes, left);
	free(left);
	return cyc ? PSIPLACE_LAMA_DIST_CYCLIC : PSIPLACE_LAMA_DIST_ARBITRARY;
}

/* LAMA's node of every rank when node i runs counts[i] tasks. */
static int lama_sequence(const struct psiplace_lama_opts *o, unsigned nnodes,
			 const struct psiplace_topo *const *topo, const unsigned *counts,
			 unsigned **seq, size_t *n, psiplace_error_t *err)
{
	struct psiplace_lama_map m;
	size_t i;

	if (psiplace_lama_map_counts(o, nnodes, topo, counts, &m, err) < 0)
		return -1;
	*n = m.ntasks;
	*seq = malloc((m.ntasks ? m.ntasks : 1) * sizeof(unsigned));
	if (!*seq) {
		psiplace_lama_map_free(&m);
		return psiplace_seterr(err, "LAMA: out of memory");
	}
	for (i = 0; i < m.ntasks; i++)
		(*seq)[i] = m.task[i].node;
	psiplace_lama_map_free(&m);
	return 0;
}

/* n is the innermost letter once boards (never in hwloc) are ignored. */
static int node_innermost(const struct psiplace_lama_opts *o)
{
	unsigned i;

	for (i = 0; i < o->map_len && o->map[i] == PSIPLACE_LEVEL_BOARD; i++)
		;
	return i < o->map_len && o->map[i] == PSIPLACE_LEVEL_NODE;
}

int psiplace_lama_choose_dist(const struct psiplace_lama_opts *o, unsigned nnodes,
			      const unsigned *tasks_per_node, const struct psiplace_topo *const *topo,
			      enum psiplace_lama_dist *dist, unsigned *node_of_rank, psiplace_error_t *err)
{
	unsigned *seq;
	size_t n;

	if (o->sequential) {
		*dist = PSIPLACE_LAMA_DIST_BLOCK; /* ranks node by node */
		return 0;
	}
	if (!topo) {
		*dist = node_innermost(o) ? PSIPLACE_LAMA_DIST_CYCLIC : PSIPLACE_LAMA_DIST_BLOCK;
		return 0;
	}
	if (lama_sequence(o, nnodes, topo, tasks_per_node, &seq, &n, err) < 0)
		return -1;
	*dist = psiplace_lama_classify(seq, n, nnodes);
	if (*dist == PSIPLACE_LAMA_DIST_ARBITRARY && node_of_rank)
		memcpy(node_of_rank, seq, n * sizeof(unsigned));
	free(seq);
	return 0;
}

/* Up to 20 node numbers of seq from `from` into buf. */
static void show_seq(char *buf, size_t len, const unsigned *seq, size_t n, size_t from)
{
	size_t k = 0, i;

	buf[0] = '\0';
	if (from)
		k += (size_t)snprintf(buf, len, "...");
	for (i = from; i < n && i < from + 20 && k + 12 < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%u", i > from || from ? " " : "", seq[i]);
	if (i < n && k + 4 < len)
		snprintf(buf + k, len - k, " ...");
}

int psiplace_lama_verify_layout(const struct psiplace_lama_opts *o, unsigned nnodes,
				const struct psiplace_topo *const *topo,
				const unsigned *layout, size_t n, psiplace_error_t *err)
{
	char a[160], b[160];
	unsigned *counts, *seq;
	size_t i, ns, from;

	counts = calloc(nnodes ? nnodes : 1, sizeof(unsigned));
	if (!counts)
		return psiplace_seterr(err, "LAMA: out of memory");
	for (i = 0; i < n; i++) {
		if (layout[i] >= nnodes) {
			free(counts);
			return psiplace_seterr(err, "task layout: task %zu is on node %u of %u",
					       i, layout[i], nnodes);
		}
		counts[layout[i]]++;
	}
	if (lama_sequence(o, nnodes, topo, counts, &seq, &ns, err) < 0) {
		free(counts);
		return -1;
	}
	free(counts);
	for (i = 0; i < n && seq[i] == layout[i]; i++)
		;
	if (i < n) {
		from = i > 4 ? i - 4 : 0;
		show_seq(a, sizeof(a), layout, n, from);
		show_seq(b, sizeof(b), seq, ns, from);
		psiplace_seterr(err,
				"task layout differs from LAMA's node order at task %zu: nodes of tasks %zu..: Slurm %s; LAMA (map %s) %s",
				i, from, a, o->map_str, b);
	}
	free(seq);
	return i < n ? -1 : 0;
}

int psiplace_lama_verify_local(const struct psiplace_lama_opts *o, const struct psiplace_topo *topo,
			       unsigned ntasks, enum psiplace_lama_dist dist, bool *matches,
			       psiplace_error_t *err)
{
	struct psiplace_lama_map m;
	uint64_t *sweep, prev = UINT64_MAX;
	unsigned k;

	*matches = false;
	if (o->sequential) {
		if (dist == PSIPLACE_LAMA_DIST_BLOCK)
			*matches = true;
		else
			psiplace_seterr(err,
					"task layout: sequential order numbers ranks node by node, which needs a block layout, not %s",
					psiplace_lama_dist_name(dist));
		return 0;
	}
	if (dist == PSIPLACE_LAMA_DIST_ARBITRARY) {
		psiplace_seterr(err, "task layout: an arbitrary layout cannot be checked on one node alone");
		return 0;
	}
	sweep = malloc((ntasks ? ntasks : 1) * sizeof(uint64_t));
	if (!sweep)
		return psiplace_seterr(err, "LAMA: out of memory");
	if (psiplace_lama_map_sweeps(o, topo, ntasks, sweep, &m, err) < 0) {
		free(sweep);
		return -1;
	}
	psiplace_lama_map_free(&m);
	*matches = true;
	for (k = 0; k < ntasks && *matches; k++) {
		/* Sweep = one turn of the letters left of n on this node. */
		if (dist == PSIPLACE_LAMA_DIST_BLOCK && sweep[k] != sweep[0]) {
			*matches = false;
			psiplace_seterr(err,
					"task layout: block puts %u tasks on this node, but map %s moves to the next node after %u of them; LAMA's order needs another layout (e.g. at most %u tasks per node)",
					ntasks, o->map_str, k, k);
		} else if (dist == PSIPLACE_LAMA_DIST_CYCLIC && k && sweep[k] == prev) {
			*matches = false;
			psiplace_seterr(err,
					"task layout: cyclic puts one task per round on this node, but map %s places tasks %u and %u here before moving to the next node; use a block layout",
					o->map_str, k - 1, k);
		}
		prev = sweep[k];
	}
	free(sweep);
	return 0;
}
