/* select/psiplace_cons_tres, the bottom of the decision: the call to
 * cons_tres with one select_p_job_test call's arguments, and the weights
 * it reads (the policy's order written into the candidates' node records
 * and restored).  The shortcuts (shortcuts.c) and the entry points
 * (select_psiplace_cons_tres.c) both stand on it; it uses only the site
 * (site.c) and the library.  Everything here runs in select_p_job_test,
 * under slurmctld's node write lock. */
#ifndef PSIPLACE_SELECT_CONS_TRES_CALL_H
#define PSIPLACE_SELECT_CONS_TRES_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "src/common/slurm_xlator.h"
#include "slurm_compat.h"
#include "psiplace/policy.h"
#include "site.h"

/* The plugin's name in log lines (plugin_type, the entry file's). */
#define PSIPLACE_SEL_TYPE "select/psiplace_cons_tres"

/* slurmctld's data is not exported by libslurm, and programs that load
 * every select plugin (submit_raw, srun, sinfo) must be able to dlopen this
 * one: the node table is a weak reference here too (site.h). */
#pragma weak node_record_table_ptr

/* The candidates of one decision and their records' saved weights. */
struct cands {
	uint32_t n, cap;
	struct psiplace_node *nodes;
	uint32_t *node_inx;     /* slurm node index of each candidate */
	uint64_t *saved;        /* its sched_weight before injection */
	uint32_t *saved_weight; /* its node weight (will-run on 23.11+) */
	uint32_t *order;        /* engine output: positions, best first */
	int64_t *next_resv;     /* per slurm node index, or NULL */
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
	/* cons_tres's job_test, and the site whose settings the weights read
	 * (PreferPoweredUp, the policy over Weight) */
	int (*job_test)(PSIPLACE_JOB_TEST_PARAMS);
	const struct site *site;
};

/* cons_tres's job_test with the call's arguments. */
int psiplace_sel_cons_tres(const struct call *a, bitstr_t *bitmap);
/* The policy's weights for the first `upto` nodes of the order (distinct
 * for the first `distinct`, one tier behind them for the rest), and their
 * restoration. */
void psiplace_sel_inject(const struct call *a, struct cands *c, uint32_t upto, uint32_t distinct);
void psiplace_sel_restore(struct cands *c, uint32_t upto);

#endif
