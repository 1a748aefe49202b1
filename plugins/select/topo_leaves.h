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

/* Per-partition topologies (topology.yaml, 25.05+): one table per tree or
 * block topology, with the index slurmctld gives the topology
 * (part_record_t's topology_idx).  Built from topology_g_get_topology_str()
 * ("tree1:root:s1,blk:b1": each topology's name, then its units down to
 * the node's leaf switch or block), which exists from 25.11; on 25.05
 * topo_set_build() finds nothing. */
struct topo_set {
	struct topo_leaves *t;
	int *tctx_idx; /* slurmctld's index of each table's topology */
	int n;
};

/* Rebuild; true when a tree or block topology has at least one node on a
 * leaf.  Called in slurmctld with the node write lock held. */
bool topo_set_build(struct topo_set *s);

/* The table of topology index `tctx_idx`; NULL: not a tree or block, or
 * no leaves. */
const struct topo_leaves *topo_set_find(const struct topo_set *s, int tctx_idx);

void topo_set_free(struct topo_set *s);

/* TopologyPlugin groups nodes into leaf switches or blocks (tree, block;
 * not none, default or flat). */
bool topo_leaves_configured(const char *topology_plugin);

#endif
