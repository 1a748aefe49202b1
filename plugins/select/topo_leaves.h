/* select/psiplace_cons_tres: the leaf switch (topology/tree) or block
 * (topology/block) of every node, as slurmctld's topology plugin names it.
 * Internal to the plugin; doc/cluster-features.md, "Network topology". */
#ifndef PSIPLACE_SELECT_TOPO_LEAVES_H
#define PSIPLACE_SELECT_TOPO_LEAVES_H

#include <stdbool.h>
#include <stdint.h>

struct topo_leaves {
	int32_t *leaf; /* per slurm node index: its leaf's number; -1: none */
	int nodes;     /* entries in leaf[] */
	int count;     /* distinct leaves */
	char **names;  /* names[leaf number] */
	int names_cap;
};

/* Rebuild from the topology plugin's node addresses ("s0.s1.n1",
 * "b1.n1": the component before the node's own name is its leaf).  Called
 * in slurmctld with the node write lock held.  Returns true when at least
 * one node has a leaf. */
bool topo_leaves_build(struct topo_leaves *t);

void topo_leaves_free(struct topo_leaves *t);

/* TopologyPlugin groups nodes into leaf switches or blocks (tree, block;
 * not none, default or flat). */
bool topo_leaves_configured(const char *topology_plugin);

#endif
