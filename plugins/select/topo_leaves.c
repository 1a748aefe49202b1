/* select/psiplace_cons_tres: which leaf switch or block each node is on.
 *
 * The names come from the topology plugin slurmctld runs, through the one
 * call every release 22.05-26.05 has (slurm_topo_get_node_addr up to
 * 23.02, topology_g_get_node_addr from 23.11; slurm_compat.h's header
 * list): the switch tables
 * themselves are slurmctld's (22.05) or the plugin's private context
 * (23.11+). */
#include <string.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"
#if PSIPLACE_SLURM_AT_LEAST(23, 11)
#include "src/interfaces/topology.h"
#define PSIPLACE_NODE_ADDR topology_g_get_node_addr
#elif PSIPLACE_SLURM_AT_LEAST(23, 2)
#include "src/interfaces/topology.h"
#define PSIPLACE_NODE_ADDR slurm_topo_get_node_addr
#else
#include "src/common/slurm_topology.h"
#define PSIPLACE_NODE_ADDR slurm_topo_get_node_addr
#endif

#include "site.h"
#include "topo_leaves.h"

bool topo_leaves_configured(const char *topo)
{
	return topo && topo[0] && strcmp(topo, "topology/none") && strcmp(topo, "topology/default") &&
	       strcmp(topo, "topology/flat");
}

/* The leaf number of NAME, added when new; the previous node's leaf is
 * tried first (nodes of one leaf are usually consecutive). */
static int32_t intern(struct topo_leaves *t, const char *name, int32_t prev)
{
	int32_t i;

	if (prev >= 0 && !strcmp(t->names[prev], name))
		return prev;
	for (i = 0; i < t->count; i++)
		if (!strcmp(t->names[i], name))
			return i;
	if (t->count == t->names_cap) {
		t->names_cap = t->names_cap ? 2 * t->names_cap : 16;
		xrecalloc(t->names, t->names_cap, sizeof(*t->names));
	}
	t->names[t->count] = xstrdup(name);
	return t->count++;
}

/* "root.s1.n1" -> "s1"; no leaf (a node outside the topology: its own
 * name alone) -> NULL.  ADDR is modified. */
static const char *leaf_of(char *addr)
{
	char *last = strrchr(addr, '.'), *before;

	if (!last)
		return NULL;
	*last = '\0';
	before = strrchr(addr, '.');
	return before ? before + 1 : addr;
}

bool topo_leaves_build(struct topo_leaves *t)
{
	node_record_t *node_ptr;
	int32_t prev = -1;
	bool any = false;
	int i;

	topo_leaves_free(t);
	if (node_record_count <= 0)
		return false;
	t->leaf = xcalloc(node_record_count, sizeof(*t->leaf));
	t->nodes = node_record_count;
	for (i = 0; i < node_record_count; i++)
		t->leaf[i] = -1;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		char *addr = NULL, *pattern = NULL;
		const char *leaf;

		if (PSIPLACE_NODE_ADDR(node_ptr->name, &addr, &pattern) == SLURM_SUCCESS && addr &&
		    (leaf = leaf_of(addr)) && leaf[0]) {
			t->leaf[i] = prev = intern(t, leaf, prev);
			any = true;
		}
		xfree(addr);
		xfree(pattern);
	}
	return any;
}

void topo_leaves_free(struct topo_leaves *t)
{
	int i;

	for (i = 0; i < t->count; i++)
		xfree(t->names[i]);
	xfree(t->names);
	xfree(t->leaf);
	memset(t, 0, sizeof(*t));
}

void topo_set_free(struct topo_set *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		topo_leaves_free(&s->t[i]);
	xfree(s->t);
	xfree(s->tctx_idx);
	memset(s, 0, sizeof(*s));
}

const struct topo_leaves *topo_set_find(const struct topo_set *s, int tctx_idx)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->tctx_idx[i] == tctx_idx)
			return s->t[i].count ? &s->t[i] : NULL;
	return NULL;
}

#if PSIPLACE_SLURM_AT_LEAST(25, 11)
/* slurmctld's index of topology NAME when its plugin groups nodes into
 * leaf switches or blocks (a ring's or torus's units are not leaves);
 * else -1. */
static int leaf_topology(char *name)
{
	dynamic_plugin_data_t *info = NULL;
	int idx = -1;
	bool leafy;

	if (topology_g_get(TOPO_DATA_TOPOLOGY_PTR, name, &info) != SLURM_SUCCESS || !info)
		return -1;
	leafy = info->plugin_id == TOPOLOGY_PLUGIN_TREE || info->plugin_id == TOPOLOGY_PLUGIN_BLOCK;
	topology_g_topoinfo_free(info);
	if (!leafy || topology_g_get(TOPO_DATA_TCTX_IDX, name, &idx) != SLURM_SUCCESS)
		return -1;
	return idx;
}

/* The table of topology NAME, added when new (its tctx_idx -1 when it has
 * no leaves). */
static struct topo_leaves *table_of(struct topo_set *s, char *name, char ***names_of)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp((*names_of)[i], name))
			return &s->t[i];
	xrecalloc(s->t, s->n + 1, sizeof(*s->t));
	xrecalloc(s->tctx_idx, s->n + 1, sizeof(*s->tctx_idx));
	xrecalloc(*names_of, s->n + 1, sizeof(**names_of));
	(*names_of)[s->n] = xstrdup(name);
	s->tctx_idx[s->n] = leaf_topology(name);
	s->t[s->n].leaf = xcalloc(node_record_count, sizeof(*s->t[s->n].leaf));
	s->t[s->n].nodes = node_record_count;
	for (i = 0; i < node_record_count; i++)
		s->t[s->n].leaf[i] = -1;
	return &s->t[s->n++];
}

bool topo_set_build(struct topo_set *s)
{
	node_record_t *node_ptr;
	char **names_of = NULL;
	bool any = false;
	int i;

	topo_set_free(s);
	if (node_record_count <= 0)
		return false;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		char *str = topology_g_get_topology_str(node_ptr), *entry, *sp = NULL;

		for (entry = str ? strtok_r(str, ",", &sp) : NULL; entry;
		     entry = strtok_r(NULL, ",", &sp)) {
			char *colon = strchr(entry, ':'), *leaf = strrchr(entry, ':');
			struct topo_leaves *t;

			if (!colon || !leaf[1])
				continue;
			*colon = '\0';
			t = table_of(s, entry, &names_of);
			if (s->tctx_idx[t - s->t] < 0)
				continue;
			t->leaf[i] = intern(t, leaf + 1, i > 0 ? t->leaf[i - 1] : -1);
			any = true;
		}
		xfree(str);
	}
	for (i = 0; i < s->n; i++)
		xfree(names_of[i]);
	xfree(names_of);
	return any;
}
#else
bool topo_set_build(struct topo_set *s)
{
	topo_set_free(s);
	return false;
}
#endif
