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

#include "cons_tres_call.h"

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
