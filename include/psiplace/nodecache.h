/* psiplace — a node table kept from one decision to the next.
 *
 * The select plugin ranks slurmctld's nodes on every decision, but what
 * the site's files say about a node (psiplace.conf: speed, priority, cost,
 * its own function; the metrics snapshot: load averages, usage, MTBF,
 * generic metrics) changes only when the node table, the configuration or
 * the metrics snapshot does.  The cache holds one psiplace_node row per
 * node with those fields, and the stamp of what they were built from; the
 * caller fills the fields that change between decisions (state, allocated
 * CPUs and memory, load, weight) for the candidates of each decision. */
#ifndef PSIPLACE_NODECACHE_H
#define PSIPLACE_NODECACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "psiplace/error.h"
#include "psiplace/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the rows were built from.  The generations are the caller's
 * counters, bumped whenever that source changes. */
struct psiplace_nodecache_stamp {
	uint64_t nodes;   /* entries in the node table */
	uint64_t table;   /* node table (reconfigure, nodes created or deleted) */
	uint64_t conf;    /* configuration (plugstack line, psiplace.conf) */
	uint64_t metrics; /* metrics snapshot */
	unsigned fields;  /* enum psiplace_node_fields the rows hold */
};

struct psiplace_nodecache {
	struct psiplace_nodecache_stamp stamp;
	bool valid;
	struct psiplace_node *rows; /* stamp.nodes rows, by node index */
	size_t cap;
	uint64_t builds; /* rebuilds so far */
};

/* True when the rows cannot serve `want`: never built, invalidated,
 * another node table, configuration or metrics snapshot, or a field group
 * missing (rows holding more groups serve a policy reading fewer). */
bool psiplace_nodecache_stale(const struct psiplace_nodecache *c,
			      const struct psiplace_nodecache_stamp *want);

/* Start a rebuild for `want`: want->nodes rows reset to the engine's
 * defaults (speed 1.0, no reservation, index = row).  When only the field
 * groups differ, the groups held so far are kept in the stamp too, so
 * alternating policies do not rebuild every time.  Returns the groups the
 * caller must fill, or -1 with err filled (no memory: the cache is then
 * invalid). */
int psiplace_nodecache_rebuild(struct psiplace_nodecache *c,
			       const struct psiplace_nodecache_stamp *want,
			       psiplace_error_t *err);

/* The next psiplace_nodecache_stale() is true. */
void psiplace_nodecache_invalidate(struct psiplace_nodecache *c);

/* Free the rows; the cache is empty and stale afterwards. */
void psiplace_nodecache_free(struct psiplace_nodecache *c);

#ifdef __cplusplus
}
#endif
#endif
