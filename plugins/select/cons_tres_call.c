/* The call to cons_tres and the weights it reads (cons_tres_call.h). */
#include <stdlib.h>
#include <string.h>

#include "cons_tres_call.h"

/* The call passed on: cons_tres decides with the weights as they are. */
int psiplace_sel_cons_tres(const struct call *a, bitstr_t *bitmap)
{
	return a->job_test(a->job_ptr, bitmap, a->min_nodes, a->max_nodes, a->req_nodes, a->mode,
			   a->preemptee_candidates, a->preemptee_job_list,
#if PSIPLACE_SLURM_AT_LEAST(24, 11)
			   a->resv_exc, a->will_run
#elif PSIPLACE_SLURM_AT_LEAST(23, 11)
			   a->resv_exc
#else
			   a->exc_core_bitmap
#endif
	);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Will-run on 23.11+: cons_tres rebuilds sched_weight from node_ptr->weight
 * (a uint32), so the order goes there as a dense, order-preserving ordinal
 * of the same (Weight, rank) key the sched_weight encoding carries, over
 * the first `upto` nodes of the order. */
static void inject_node_weights(struct cands *c, uint32_t upto)
{
	uint64_t *keys = xcalloc(upto, sizeof(*keys)), *sorted = xcalloc(upto, sizeof(*sorted));
	uint32_t i, nu = 0;

	for (i = 0; i < upto; i++)
		keys[i] = node_record_table_ptr[c->node_inx[c->order[i]]]->sched_weight >> 8;
	memcpy(sorted, keys, upto * sizeof(*keys));
	qsort(sorted, upto, sizeof(*sorted), cmp_u64);
	for (i = 0; i < upto; i++)
		if (!nu || sorted[nu - 1] != sorted[i])
			sorted[nu++] = sorted[i];
	for (i = 0; i < upto; i++) {
		uint64_t *at = bsearch(&keys[i], sorted, nu, sizeof(*sorted), cmp_u64);

		node_record_table_ptr[c->node_inx[c->order[i]]]->weight =
			(uint32_t)(at - sorted) + 1;
	}
	xfree(keys);
	xfree(sorted);
}

/* Weights for the first `upto` nodes of the order (all candidates, or the
 * ranked tier offered alone): distinct for the first `distinct`, one tier
 * behind them for the rest. */
void psiplace_sel_inject(const struct call *a, struct cands *c, uint32_t upto, uint32_t distinct)
{
	uint32_t i;

	for (i = 0; i < upto; i++) {
		uint32_t pos = c->order[i];
		node_record_t *node_ptr = node_record_table_ptr[c->node_inx[pos]];
		uint64_t orig = c->saved[pos];

		/* slurmctld gives a powered-down node the reboot weight and
		 * "boot required" (psiplace_select_boot_bits(); from 25.05 a node being
		 * resumed bit 41 too), which put it behind every powered-up node
		 * whatever the policy: PreferPoweredUp=no leaves the order to
		 * the policy (its Weight back), and a node whose resume a job
		 * already caused is up for the next */
		if (site_boot_weight_dropped(a->site, node_ptr))
			orig = site_drop_boot(node_ptr, orig, c->saved_weight[pos]);
		node_ptr->sched_weight = psiplace_select_sched_weight(
			orig, i < distinct ? i : distinct, a->site->conf.policy_overrides_weight);
	}
	if (PSIPLACE_WILL_RUN_READS_NODE_WEIGHT && a->mode == SELECT_MODE_WILL_RUN)
		inject_node_weights(c, upto);
}

/* Every path that injected restores both fields of the same nodes (node
 * weights are only changed in will-run mode, but restoring them always is
 * as cheap). */
void psiplace_sel_restore(struct cands *c, uint32_t upto)
{
	uint32_t i;

	for (i = 0; i < upto; i++) {
		uint32_t pos = c->order[i];
		node_record_t *node_ptr = node_record_table_ptr[c->node_inx[pos]];

		node_ptr->sched_weight = c->saved[pos];
		node_ptr->weight = c->saved_weight[pos];
	}
}
