/* The shortcuts of select/psiplace_cons_tres: the ways a decision reaches
 * the full decision's answer with less of cons_tres's work (doc/select.md,
 * "The ranked tier first", "Backfill cycles", "How many nodes").  Each
 * sits in shortcuts.c beside its equality argument (why its answer is the
 * full decision's) and the test that proves it.  Everything here runs in
 * select_p_job_test, under slurmctld's node write lock. */
#ifndef PSIPLACE_SELECT_SHORTCUTS_H
#define PSIPLACE_SELECT_SHORTCUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"
#include "psiplace/policy.h"

/* slurmctld's data is not exported by libslurm, and programs that load
 * every select plugin (submit_raw, srun, sinfo) must be able to dlopen this
 * one: the node table is a weak reference here too (site.h). */
#pragma weak node_record_table_ptr

/* The candidates of one decision and their records' saved weights. */
struct cands {
	uint32_t n, cap;
	struct psiplace_node *nodes;
	uint32_t *node_inx;  /* slurm node index of each candidate */
	uint64_t *saved;     /* its sched_weight before injection */
	uint32_t *saved_weight; /* its node weight (will-run on 23.11+) */
	uint32_t *order;     /* engine output: positions, best first */
	int64_t *next_resv;  /* per slurm node index, or NULL */
	int resv_cap;
};

/* The arguments of one select_p_job_test call, passed on to cons_tres. */
struct call {
	job_record_t *job_ptr;
	uint32_t min_nodes, max_nodes, req_nodes;
	uint16_t mode;
	psiplace_list_t preemptee_candidates;
	psiplace_list_t *preemptee_job_list;
	PSIPLACE_JOB_TEST_TAIL_FIELDS
	/* what the shortcuts read of the plugin's settings: slurm.conf lets
	 * cons_tres choose greedily by weight and there is no topology.yaml;
	 * psiplace's RankedTier */
	bool greedy_conf;
	uint32_t ranked_tier;
	/* the count was cons_tres's over a few identical nodes (count_first):
	 * cons_tres's own answer over all of them is still to be asked */
	bool count_of_few;
};


/* From select_psiplace_cons_tres.c: cons_tres's job_test with the call's
 * arguments; the policy's weights for the first `upto` nodes of the order
 * (distinct for the first `distinct`), and their restoration. */
int psiplace_sel_cons_tres(const struct call *a, bitstr_t *bitmap);
void psiplace_sel_inject(struct cands *c, uint32_t upto, uint32_t distinct, uint16_t mode);
void psiplace_sel_restore(struct cands *c, uint32_t upto);

/* The ranked tier (the first `distinct` nodes of the order) may be
 * offered alone: fewer nodes than the candidates, and the job and those
 * nodes settled. */
bool psiplace_sel_tier_first_ok(const struct call *a, const struct cands *c, uint32_t distinct);
/* The tier alone (in will-run exact_first before it); SLURM_SUCCESS with
 * bitmap set to the full decision's answer, else bitmap and the job's
 * start_time unchanged. */
int psiplace_sel_tier_first(const struct call *a, struct cands *c, bitstr_t *bitmap,
			    uint32_t distinct, uint32_t need);
/* Will-run where the tier is not offered: exact_first alone may be. */
bool psiplace_sel_exact_alone_ok(const struct call *a, const struct cands *c, uint32_t need);
/* The first `need` nodes of the order alone, one weight (will-run). */
int psiplace_sel_exact_first(const struct call *a, struct cands *c, bitstr_t *bitmap,
			     uint32_t need);
/* A will-run that needs every one of the `offered` nodes: cons_tres's own
 * weights give the same answer. */
bool psiplace_sel_every_node_ok(const struct call *b, uint32_t offered);
/* The node count a range leaves open, decided by cons_tres first: *b is a
 * with the count fixed; returns cons_tres's own choice or NULL (with
 * b->count_of_few, its choice over a few identical nodes only). */
bitstr_t *psiplace_sel_count_first(const struct call *a, bitstr_t *work, struct call *b);
/* cons_tres's own choice over `set` with a's range and no preemption, the
 * job's start_time left as it was (NULL: none; now_only: nor a later
 * will-run start). */
bitstr_t *psiplace_sel_count_probe(const struct call *a, const bitstr_t *set, bool now_only);

#endif
