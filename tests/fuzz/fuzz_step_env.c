/* libFuzzer: the step environment as slurmstepd reads it for --psi-pset and
 * LAMA (plugins/spank/spank_step.c), with the same library calls.  The
 * user writes SLURM_STEP_TASKS_PER_NODE, SLURM_STEP_NODELIST,
 * SLURM_DISTRIBUTION and PSIPLACE_LAMA_LAYOUT (srun is not setuid); Slurm
 * gives ntasks, this node's index and its local task count.
 *
 * Properties: node_of has exactly ntasks entries (ASan reports any write
 * past it) and each one is < nnodes, also for counts that were never
 * checked against Slurm (a 32-bit sum of them wraps: issue 18 finding 1);
 * a layout psiplace_step_tasks_per_node() accepts adds up to ntasks in 64
 * bits with nlocal on this node; the step's process sets hold every rank
 * once in psiplace://all and once in the node sets; a TopologyFile %n path
 * never leaves its directory.
 *
 * Input: 4 bytes ntasks (little endian, below 2^16), 1 byte this node,
 * 1 byte distribution (0 none, 1 block, 2 cyclic, 3 plane=N, 4 arbitrary),
 * 1 byte N, then lines: tasks per node, node list, psiplace's rank order
 * (empty: none), this node's name. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psiplace/error.h"
#include "psiplace/hostlist.h"
#include "psiplace/lama_launch.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/psets.h"
#include "psiplace/step_layout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Sets of at most this many nodes are built (time per input, not safety). */
#define MAX_SET_NODES 4096

static char *line(char **p)
{
	char *s = *p, *nl;

	if (!s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = NULL;
	}
	return s;
}

/* The node of every rank into node_of[ntasks] exactly; on success every
 * entry names a node. */
static int rank_nodes(const uint32_t *counts, uint32_t nnodes, uint32_t ntasks, const char *dist,
		      const char *layout, uint32_t **out)
{
	uint32_t *node_of = malloc((ntasks ? ntasks : 1) * sizeof(*node_of)), r;
	psiplace_error_t err;

	if (!node_of)
		abort();
	if (psiplace_psets_rank_nodes(counts, nnodes, ntasks, dist, layout, node_of, &err) < 0) {
		if (!err.text[0] || !memchr(err.text, '\0', sizeof(err.text)))
			abort();
		free(node_of);
		return -1;
	}
	for (r = 0; r < ntasks; r++)
		if (node_of[r] >= nnodes)
			abort();
	if (psiplace_counts_sum(counts, nnodes) != ntasks)
		abort();
	*out = node_of;
	return 0;
}

static void step_sets(uint32_t ntasks, uint32_t nnodes, const struct psiplace_hostlist *hl,
		      const uint32_t *node_of)
{
	struct psiplace_psets out;
	psiplace_error_t err;
	const struct psiplace_pset *all;
	size_t i, members = 0;

	if (psiplace_psets_step(NULL, ntasks, nnodes, (const char *const *)hl->host, node_of, &out,
				&err) < 0)
		abort(); /* node_of was checked: nothing to refuse */
	all = psiplace_psets_find(&out, PSIPLACE_PSET_PREFIX "all");
	if (!all || all->n != ntasks || out.n != 1 + (size_t)nnodes)
		abort();
	for (i = 1; i < out.n; i++) {
		for (size_t k = 0; k < out.set[i].n; k++)
			if (out.set[i].ranks[k] >= ntasks || (k && out.set[i].ranks[k] <= out.set[i].ranks[k - 1]))
				abort();
		members += out.set[i].n;
	}
	if (members != ntasks)
		abort();
	psiplace_psets_free(&out);
}

/* spank_step.c's step_layout() and publish_psets(). */
static void step_env(uint32_t ntasks, uint32_t node, const char *dist, const char *tpn,
		     const char *nodelist, const char *layout)
{
	struct psiplace_hostlist hl = { 0 };
	struct psiplace_step s;
	psiplace_error_t err;
	uint32_t *counts, n, nnodes, *node_of;
	bool have_hl;

	/* Unchecked counts straight into the layout: never a write past
	 * ntasks, whatever they add up to (in 32 bits). */
	if (psiplace_tasks_per_node_parse(tpn, "SLURM_STEP_TASKS_PER_NODE", &counts, &n, &err) < 0)
		return;
	if (rank_nodes(counts, n, ntasks, dist, layout, &node_of) == 0)
		free(node_of);
	/* Slurm's node count: the node list's when it expands (the consistent
	 * case), else the counts' own. */
	have_hl = psiplace_hostlist_expand(nodelist, "SLURM_STEP_NODELIST", &hl, &err) == 0;
	nnodes = have_hl ? (uint32_t)hl.n : n;
	memset(&s, 0, sizeof(s));
	s.node = node;
	s.ntasks = ntasks;
	s.nlocal = node < n ? counts[node] : 0;
	free(counts);
	if (psiplace_step_tasks_per_node(tpn, "SLURM_STEP_TASKS_PER_NODE", nnodes, ntasks, s.node,
					 s.nlocal, &s.tasks_per_node, &err) < 0) {
		if (s.tasks_per_node || !err.text[0])
			abort();
		psiplace_hostlist_free(&hl);
		return;
	}
	s.nnodes = nnodes;
	if (psiplace_counts_sum(s.tasks_per_node, nnodes) != ntasks || node >= nnodes ||
	    s.tasks_per_node[node] != s.nlocal)
		abort();
	/* LAMA's check of the layout: this node's ranks under block order */
	if ((s.gtids = malloc((s.nlocal ? s.nlocal : 1) * sizeof(*s.gtids)))) {
		uint64_t first = psiplace_counts_sum(s.tasks_per_node, node);

		for (uint32_t i = 0; i < s.nlocal; i++)
			s.gtids[i] = (uint32_t)(first + i);
		if (!(psiplace_lama_step_dists(&s) & 1)) /* block holds by construction */
			abort();
	}
	if (rank_nodes(s.tasks_per_node, nnodes, ntasks, dist, layout, &node_of) == 0) {
		if (have_hl && nnodes <= MAX_SET_NODES)
			step_sets(ntasks, nnodes, &hl, node_of);
		free(node_of);
	}
	psiplace_step_free(&s);
	psiplace_hostlist_free(&hl);
}

/* TopologyFile=/t/%n.xml: the name lands between "/t/" and ".xml" whole,
 * without a '/' and not "." or "..", or is refused. */
static void topology_path(const char *name)
{
	char buf[300];
	psiplace_error_t err;
	size_t len;

	if (psiplace_topology_path("/t/%n.xml", name, buf, sizeof(buf), &err) < 0) {
		if (!err.text[0] || buf[0])
			abort();
		return;
	}
	len = strlen(buf);
	if (len < 8 || strncmp(buf, "/t/", 3) || strcmp(buf + len - 4, ".xml") ||
	    strchr(buf + 3, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    len - 7 != strlen(name))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dists[] = { NULL, "block", "cyclic", NULL, "arbitrary" };
	char *text, *p, *tpn, *nodelist, *layout, *name, plane[32];
	const char *dist;
	uint32_t ntasks, node;

	if (size < 7)
		return 0;
	ntasks = (uint32_t)(data[0] | data[1] << 8 | data[2] << 16 | (uint32_t)data[3] << 24) & 0xffff;
	node = data[4];
	dist = dists[data[5] % 5];
	if (data[5] % 5 == 3) {
		snprintf(plane, sizeof(plane), "plane=%u", data[6]);
		dist = plane;
	}
	if (!(text = malloc(size - 7 + 1)))
		return 0;
	memcpy(text, data + 7, size - 7);
	text[size - 7] = '\0';
	p = text;
	tpn = line(&p);
	nodelist = line(&p);
	layout = line(&p);
	name = line(&p);
	if (tpn && *tpn)
		step_env(ntasks, node, dist, tpn, nodelist ? nodelist : "", layout && *layout ? layout : NULL);
	if (name)
		topology_path(name);
	free(text);
	return 0;
}
