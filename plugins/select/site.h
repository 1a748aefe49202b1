/* select/psiplace_cons_tres: the site's data (plugstack.conf line,
 * psiplace.conf, metrics file) and what slurmctld knows about nodes,
 * turned into the library's node records.  Internal to the plugin. */
#ifndef PSIPLACE_SELECT_SITE_H
#define PSIPLACE_SELECT_SITE_H

#include <stdbool.h>

#include "slurm_compat.h"
#include <stdint.h>

#include "psiplace/metrics_file.h"
#include "psiplace/policy.h"
#include "psiplace/priorityf.h"
#include "psiplace/psiplace_conf.h"
#include "psiplace/plugstack_line.h"
#include "psiplace/error.h"

/* slurmctld's data is not exported by libslurm: programs that link libslurm
 * and load every select plugin (slurm_init()) must still be able to dlopen
 * this one, so every data reference to slurmctld is weak (functions bind
 * lazily and are only called inside slurmctld). */
#pragma weak node_record_table_ptr
#pragma weak node_record_count
#pragma weak resv_list
#pragma weak part_list
#if PSIPLACE_SLURM_AT_LEAST(26, 5)
#pragma weak node_select_stats_array
#endif

struct site {
	struct psiplace_siteconf conf;           /* the psiplace line */
	struct psiplace_priorityf *cluster_prio; /* PriorityFunction=, compiled */
	struct psiplace_psiconf psiconf;         /* psiplace.conf */
	struct psiplace_metrics *metrics;        /* the reader thread's latest, or NULL */
	/* per slurm node index: its psiplace.conf and metrics entries, rebuilt
	 * when either file is re-read or the node table grows */
	const struct psiplace_nodeconf **conf_of;
	const struct psiplace_metrics_node **metrics_of;
	int indexed; /* entries in the two arrays; 0: rebuild */
	/* cons_tres's select_p_select_nodeinfo_set_all, called at most once per
	 * decision and only when a candidate has jobs (site_fill_node); the
	 * caller clears alloc_fresh at the start of each decision */
	int (*set_all)(void);
	bool alloc_fresh;
	/* topology.yaml beside psiplace.conf (25.05+: per-partition
	 * topologies, which select nodes by switch or block, not by weight
	 * alone); looked for when the files are read */
	bool topology_yaml;
};

/* Load everything a site configures; -1 with err "FILE[:LINE]: ..." on a
 * bad file (the caller decides: fatal at start, keep the old at reconfigure).
 * site_paths() names the files from slurm.conf (xmalloc'd; no file is
 * touched), site_load_paths() reads them (the reader thread's part,
 * site_files.c: libc and libpsiplace only), site_load() does both.
 * site_free() frees a site a decision used; site_files_free() one that
 * never had its node index built (what the reader publishes). */
int site_load(struct site *s, psiplace_error_t *err);
void site_paths(char **plugstack, char **psiconf);
int site_load_paths(struct site *s, const char *plugstack, const char *psiconf,
		    psiplace_error_t *err);
void site_free(struct site *s);
void site_files_free(struct site *s);

/* Take the metrics the reader thread published since the last call, if
 * any (one atomic exchange: never reads a file); true when it took some. */
bool site_refresh_metrics(struct site *s);

/* At reconfigure: `to` keeps `from`'s metrics when both name the same
 * metrics file (the reader goes on), else it starts without. */
void site_keep_metrics(struct site *to, struct site *from);

/* At the start of a decision: cons_tres's allocation counts are stale
 * until set_all runs again (site_fill_node calls it when needed). */
void site_alloc_reset(struct site *s, int (*set_all)(void));

/* Which parts of a node record to fill: a policy's psiplace_policy_fields()
 * (policy.h).  Filling only those keeps a decision over 10,000+ nodes cheap
 * (node records are cold in cache). */
enum {
	SITE_F_STATIC = PSIPLACE_FIELDS_STATIC, /* memory, disk, features, arch, os */
	SITE_F_CONF = PSIPLACE_FIELDS_CONF,     /* psiplace.conf: speed, priority, cost, function */
	SITE_F_LOAD = PSIPLACE_FIELDS_LOAD,     /* load, job counts, the metrics file */
	SITE_F_ALLOC = PSIPLACE_FIELDS_ALLOC,   /* cons_tres's allocated CPUs and memory (exact) */
	SITE_F_ALL = PSIPLACE_FIELDS_ALL,
};

/* The rows of the node cache (psiplace_nodecache, one per slurm node
 * index, reset by psiplace_nodecache_rebuild): what psiplace.conf
 * (SITE_F_CONF) and the metrics snapshot (SITE_F_LOAD) say about each node.
 * Valid until the configuration, the metrics snapshot or the node table
 * changes. */
void site_fill_rows(struct site *s, unsigned fields, struct psiplace_node *rows);

/* One candidate node as the engine sees it; `index` is the slurm node
 * index.  Strings are borrowed from the node record.  With `row` (the
 * node's cache row, built by site_fill_rows for at least `fields`) the
 * site's values come from it, and only slurmctld's node record is read;
 * without, from the files' entries.  Fields outside `fields` keep the
 * engine's defaults (speed 1.0, no reservation). */
void site_fill_node(struct site *s, int index, unsigned fields, const struct psiplace_node *row,
		    struct psiplace_node *out);

/* Up, being resumed, or powered down with jobs already allocated (its
 * resume is on its way): what PreferPoweredUp and PRIORITYF's POWER see. */
bool site_node_powered(const node_record_t *node_ptr);

/* A powered-down node that is ranked with the powered-up ones
 * (PreferPoweredUp=no, or its resume is on its way), or one being resumed
 * (POWERING_UP: it counts as up): the plugin gives it its own Weight back
 * in place of slurmctld's reboot weight and clears the bits
 * site_drop_boot() clears. */
bool site_boot_weight_dropped(const struct site *s, const node_record_t *node_ptr);

/* `orig` (the node's sched_weight) with slurmctld's boot bits cleared and
 * `weight` in place of the weight it used (psiplace_select_drop_boot). */
uint64_t site_drop_boot(const node_record_t *node_ptr, uint64_t orig, uint32_t weight);

/* Seconds from now until the next reservation on each node (-1: none),
 * for LASTAVAILABLE's fit in time; next_resv[] has node_record_count
 * entries and is filled for the nodes set in `nodes`. */
void site_next_reservations(const void *node_bitmap, int64_t *next_resv);

#endif
